import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servingPair } from './serving-pair';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'serving-pair-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('servingPair', () => {
  it('keeps a self-signed pair in --cert-dir, made once and read on the next start', async () => {
    const certDir = join(dir, 'certs');
    const first = await servingPair({ certDir }, 'svc-scheduler');
    expect(readFileSync(join(certDir, 'svc-scheduler.crt'), 'utf8')).toBe(first.cert);
    expect(readFileSync(join(certDir, 'svc-scheduler.key'), 'utf8')).toBe(first.key);
    expect(statSync(join(certDir, 'svc-scheduler.key')).mode & 0o777).toBe(0o600);
    expect(new X509Certificate(first.cert).subject).toBe('CN=svc-scheduler');
    expect(await servingPair({ certDir }, 'svc-scheduler')).toEqual(first);
  });

  it('prefers the given pair, and without --cert-dir writes nothing', async () => {
    const made = await servingPair({}, 'svc-controller-manager');
    expect(new X509Certificate(made.cert).checkIP('127.0.0.1')).toBe('127.0.0.1');
    const given = await servingPair({ certDir: join(dir, 'elsewhere') }, 'svc-controller-manager');
    const files = {
      tlsCertFile: join(dir, 'elsewhere', 'svc-controller-manager.crt'),
      tlsPrivateKeyFile: join(dir, 'elsewhere', 'svc-controller-manager.key'),
    };
    expect(await servingPair({ ...files, certDir: join(dir, 'unused') }, 'other')).toEqual(given);
    expect(() => statSync(join(dir, 'unused'))).toThrow();
  });
});
