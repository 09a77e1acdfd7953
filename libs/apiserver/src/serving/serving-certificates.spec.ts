import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { ensureServingCertificates, servingNames } from './serving-certificates';

const DAY = 24 * 60 * 60 * 1000;

describe('ensureServingCertificates', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-certs-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates a CA and a serving pair it signs, for loopback names, valid a year, keys owner-only', async () => {
    const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    expect(certs.generated).toBe(true);
    const ca = new X509Certificate(await readFile(join(dir, 'ca.crt')));
    const leaf = new X509Certificate(certs.certPem);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.keyUsage ?? []).toContain('1.3.6.1.5.5.7.3.1');
    const lifetime = Date.parse(leaf.validTo) - Date.now();
    expect(lifetime).toBeGreaterThan(364 * DAY);
    expect(lifetime).toBeLessThanOrEqual(366 * DAY);
    expect(certs.caPem?.trim()).toBe(ca.toString().trim());
    // The served chain carries the CA after the leaf, as Kubernetes' self-signed files do.
    expect(certs.certPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    for (const name of ['ca.key', 'apiserver.key']) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
  });

  it('adds a specific bind or advertise address to the names', async () => {
    expect(servingNames({ bindAddress: '0.0.0.0', advertiseAddress: '10.1.2.3' }).ips).toContain('10.1.2.3');
    expect(servingNames({ bindAddress: '::', advertiseAddress: 'api.example.com' }).dns).toContain('api.example.com');
    expect(servingNames({ bindAddress: '192.168.7.7' }).ips).toEqual(['127.0.0.1', '::1', '192.168.7.7']);
    const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1', advertiseAddress: '10.1.2.3' });
    expect(new X509Certificate(certs.certPem).checkIP('10.1.2.3')).toBe('10.1.2.3');
  });

  it('names what pods reach the server by: the kubernetes Service, its ClusterIP and its DNS names', async () => {
    const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1', kubernetesServiceIP: '10.96.0.1' });
    const cert = new X509Certificate(certs.certPem);
    expect(cert.checkIP('10.96.0.1')).toBe('10.96.0.1');
    for (const name of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']) {
      expect(cert.checkHost(name, { wildcards: false })).toBe(name);
    }
  });

  it('reuses valid files on restart', async () => {
    const first = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    const second = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    expect(second.generated).toBe(false);
    expect(second.certPem).toBe(first.certPem);
    expect(second.keyPem).toBe(first.keyPem);
  });

  it('renews both when the CA expires within 30 days', async () => {
    const first = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    const later = Date.now() + 340 * DAY;
    const renewed = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0', now: () => later });
    expect(renewed.generated).toBe(true);
    expect(renewed.caPem).not.toBe(first.caPem);
    expect(Date.parse(new X509Certificate(renewed.certPem).validTo)).toBeGreaterThan(later + 300 * DAY);
  });

  it('re-signs only the serving pair when it is missing, unreadable or lacks a needed name', async () => {
    const first = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    await writeFile(join(dir, 'apiserver.key'), 'garbage');
    const repaired = await ensureServingCertificates({ certDir: dir, bindAddress: '0.0.0.0' });
    expect(repaired.generated).toBe(true);
    expect(repaired.caPem).toBe(first.caPem);
    expect(repaired.certPem).not.toBe(first.certPem);

    const moved = await ensureServingCertificates({ certDir: dir, bindAddress: '10.9.8.7' });
    expect(moved.generated).toBe(true);
    expect(moved.caPem).toBe(first.caPem);
    expect(new X509Certificate(moved.certPem).checkIP('10.9.8.7')).toBe('10.9.8.7');
  });

  it('uses given cert and key files, trusting the chain root only when it is self-signed', async () => {
    const selfSigned = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    await writeFile(join(dir, 'given.crt'), selfSigned.cert);
    await writeFile(join(dir, 'given.key'), selfSigned.private);
    const given = await ensureServingCertificates({
      certDir: join(dir, 'unused'),
      bindAddress: '0.0.0.0',
      tlsCertFile: join(dir, 'given.crt'),
      tlsPrivateKeyFile: join(dir, 'given.key'),
    });
    expect(given).toMatchObject({ generated: false, certFile: join(dir, 'given.crt'), keyFile: join(dir, 'given.key') });
    expect(given.caPem?.trim()).toBe(new X509Certificate(selfSigned.cert).toString().trim());

    // A leaf signed by a CA the server does not hold: clients use their own trust.
    const ca = await ensureServingCertificates({ certDir: join(dir, 'ca'), bindAddress: '0.0.0.0' });
    const leafOnly = ca.certPem.split(/(?<=-----END CERTIFICATE-----)\n/)[0];
    await writeFile(join(dir, 'leaf.crt'), leafOnly);
    await writeFile(join(dir, 'leaf.key'), ca.keyPem);
    const leaf = await ensureServingCertificates({
      certDir: dir,
      bindAddress: '0.0.0.0',
      tlsCertFile: join(dir, 'leaf.crt'),
      tlsPrivateKeyFile: join(dir, 'leaf.key'),
    });
    expect(leaf.caPem).toBeUndefined();
  });

  it('refuses half a pair and a key that does not match', async () => {
    const a = await generate([{ name: 'commonName', value: 'a' }], { keyType: 'ec', algorithm: 'sha256' });
    const b = await generate([{ name: 'commonName', value: 'b' }], { keyType: 'ec', algorithm: 'sha256' });
    await writeFile(join(dir, 'a.crt'), a.cert);
    await writeFile(join(dir, 'b.key'), b.private);
    await expect(ensureServingCertificates({ certDir: dir, bindAddress: '', tlsCertFile: join(dir, 'a.crt') })).rejects.toThrow(/together/);
    await expect(
      ensureServingCertificates({ certDir: dir, bindAddress: '', tlsCertFile: join(dir, 'a.crt'), tlsPrivateKeyFile: join(dir, 'b.key') }),
    ).rejects.toThrow(/does not match/);
  });
});
