import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@svc/client';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { ServiceAccountCredentials } from './service-account-credentials';

let env: TestEnvironment;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sa-credentials-'));
  const keyFile = join(dir, 'sa.key');
  await writeFile(keyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  env = await startTestEnvironment({
    authentication: { serviceAccounts: { signingKeyFile: keyFile, issuers: ['https://svc.example.test'] } },
    authorization: { modes: ['RBAC'] },
  });
}, 60_000);

afterAll(async () => {
  await env?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface SelfSubjectReview {
  status?: { userInfo?: { username?: string } };
}

async function whoami(client: Client): Promise<string | undefined> {
  const review = await client.rest.request<SelfSubjectReview>({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  return review.status?.userInfo?.username;
}

describe('the controllers own credentials', () => {
  it('makes the account, connects as it with a TokenRequest token, and renews the token when 80% of its life has gone', async () => {
    let now = Date.now();
    const credentials = new ServiceAccountCredentials(env.client, 'svc-system', () => now);
    const client = new Client(credentials.clientConfig('deployment-controller'));
    try {
      expect(await whoami(client)).toBe('system:serviceaccount:svc-system:deployment-controller');
      expect((await env.client.serviceAccounts.get('deployment-controller', { namespace: 'svc-system' })).metadata?.name).toBe('deployment-controller');
      expect(client.rest.config.userAgent).toMatch(/\/deployment-controller$/);
      expect(client.rest.config.clientCert).toBeUndefined();

      const first = await credentials.token('deployment-controller');
      now += 0.79 * 3600_000;
      expect(await credentials.token('deployment-controller')).toBe(first);
      now += 0.02 * 3600_000;
      const renewed = await credentials.token('deployment-controller');
      expect(renewed).not.toBe(first);
      // Both come at once: one TokenRequest serves them.
      now += 3600_000;
      const [a, b] = await Promise.all([credentials.token('deployment-controller'), credentials.token('deployment-controller')]);
      expect(a).toBe(b);
    } finally {
      client.close();
    }
  }, 30_000);

  it('says which account it could not get a token for', async () => {
    const anonymous = new Client({ server: env.url, ca: env.clientConfig.ca });
    try {
      const credentials = new ServiceAccountCredentials(anonymous, 'svc-system');
      await expect(credentials.token('ghost-controller')).rejects.toThrow(/cannot get a token for service account svc-system\/ghost-controller: .*forbidden/i);
    } finally {
      anonymous.close();
    }
  });
});
