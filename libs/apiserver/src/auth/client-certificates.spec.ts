import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCa, issueClientCertificate } from './client-certificates';

describe('client certificate authorities', () => {
  it('get names of their own, so that a server trusting two made in the same second finds the right issuer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-client-ca-'));
    try {
      const now = Date.now();
      const [first, second] = await Promise.all([ensureClientCa(join(dir, 'a'), now), ensureClientCa(join(dir, 'b'), now)]);
      const a = new X509Certificate(first.certPem);
      const b = new X509Certificate(second.certPem);
      expect(a.subject).not.toBe(b.subject);
      const issued = new X509Certificate((await issueClientCertificate(second, 'carol', ['team-a'])).certPem);
      expect(issued.issuer).toBe(b.subject);
      expect(issued.verify(b.publicKey)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
