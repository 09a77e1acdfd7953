import { X509Certificate } from 'node:crypto';
import { parseCertificateRequest } from '@svc/api';
import { SigningAuthority } from '@svc/controllers';
import { generate } from 'selfsigned';
import { newKeyAndRequest, rotationDeadline } from './certificate-request';

describe('the node’s certificate requests', () => {
  it('asks for its name in its group with its addresses, and renews between 70 and 90 % of the life it is given', async () => {
    const { keyPem, requestPem } = await newKeyAndRequest({
      commonName: 'system:node:worker-1',
      organizations: ['system:nodes'],
      dnsNames: ['worker-1'],
      ips: ['10.0.0.7'],
    });
    expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(parseCertificateRequest(requestPem)).toMatchObject({
      commonName: 'system:node:worker-1',
      organizations: ['system:nodes'],
      dnsNames: ['worker-1'],
      ipAddresses: ['10.0.0.7'],
      publicKeyAlgorithm: 'ECDSA',
    });
    const ca = await generate([{ name: 'commonName', value: 'test-ca' }], {
      keyType: 'ec',
      curve: 'P-256',
      extensions: [{ name: 'basicConstraints', cA: true }],
    });
    const authority = await SigningAuthority.fromPem(ca.cert, ca.private);
    const now = Date.now();
    const certPem = await authority.sign(requestPem, ['digital signature', 'server auth'], 100_000, now);
    const cert = new X509Certificate(certPem);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:worker-1, IP Address:10.0.0.7');
    const notBefore = Date.parse(cert.validFrom);
    const total = Date.parse(cert.validTo) - notBefore;
    expect(rotationDeadline(certPem, () => 0)).toBe(notBefore + total * 0.7);
    expect(rotationDeadline(certPem, () => 1)).toBe(notBefore + total * 0.9);
  });
});
