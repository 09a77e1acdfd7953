import { mkdtemp, readFile, readlink, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@svc/api';
import type { ConfigObjects } from '../objects/config-objects';
import { ServiceAccountTokenManager, type TokenIssuer, type TokenRequestKey } from './service-account-token-manager';
import { VolumeManager } from './volume-manager';

const key: TokenRequestKey = {
  namespace: 'team',
  serviceAccount: 'robot',
  audience: 'vault',
  expirationSeconds: 3600,
  podName: 'web',
  podUid: 'uid-1',
};

function fakeIssuer(clock: { now: number }) {
  const calls: TokenRequestKey[] = [];
  let fail = false;
  const issue: TokenIssuer = async (k) => {
    calls.push(k);
    if (fail) throw new Error('connection refused');
    return { token: `token-${calls.length}`, expirationSeconds: k.expirationSeconds, expiresAt: clock.now + k.expirationSeconds * 1000 };
  };
  return { issue, calls, failing: (value: boolean) => (fail = value) };
}

describe('ServiceAccountTokenManager', () => {
  it('keeps a token until 80% of its lifetime has passed, then asks for a new one', async () => {
    const clock = { now: 1_000_000 };
    const issuer = fakeIssuer(clock);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    expect(await tokens.token(key)).toBe('token-1');
    expect(tokens.refreshAt(key)).toBe(1_000_000 + 0.8 * 3600 * 1000);
    clock.now += 0.79 * 3600 * 1000;
    expect(await tokens.token(key)).toBe('token-1');
    clock.now += 0.02 * 3600 * 1000;
    expect(await tokens.token(key)).toBe('token-2');
    expect(issuer.calls).toHaveLength(2);
    tokens.stop();
  });

  it('asks again at the latest a day after a long-lived token was issued', async () => {
    const clock = { now: 0 };
    const issuer = fakeIssuer(clock);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    const week = { ...key, expirationSeconds: 7 * 24 * 3600 };
    await tokens.token(week);
    expect(tokens.refreshAt(week)).toBe(24 * 3600 * 1000);
    tokens.stop();
  });

  it('holds one token per pod, account, audience and lifetime', async () => {
    const clock = { now: 0 };
    const issuer = fakeIssuer(clock);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    await tokens.token(key);
    await tokens.token({ ...key, audience: 'other' });
    await tokens.token({ ...key, podUid: 'uid-2' });
    await tokens.token(key);
    expect(issuer.calls.map((c) => [c.podUid, c.audience])).toEqual([
      ['uid-1', 'vault'],
      ['uid-1', 'other'],
      ['uid-2', 'vault'],
    ]);
    tokens.forgetPod('uid-1');
    await tokens.token(key);
    expect(issuer.calls).toHaveLength(4);
    tokens.stop();
  });

  it('serves a due but unexpired token while the API server cannot be reached, and fails once it expired', async () => {
    const clock = { now: 0 };
    const issuer = fakeIssuer(clock);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    await tokens.token(key);
    issuer.failing(true);
    clock.now = 0.9 * 3600 * 1000;
    expect(await tokens.token(key)).toBe('token-1');
    clock.now = 3600 * 1000;
    await expect(tokens.token(key)).rejects.toThrow(/cannot get a token for service account team\/robot: connection refused/);
    tokens.stop();
  });

  it('tells the pod when its token is due', async () => {
    jest.useFakeTimers();
    try {
      const due: string[] = [];
      const clock = { now: Date.now() };
      const issuer = fakeIssuer(clock);
      const tokens = new ServiceAccountTokenManager(
        issuer.issue,
        (uid) => due.push(uid),
        () => clock.now,
      );
      await tokens.token({ ...key, expirationSeconds: 600 });
      jest.advanceTimersByTime(479_000);
      expect(due).toEqual([]);
      jest.advanceTimersByTime(2_000);
      expect(due).toEqual(['uid-1']);
      tokens.stop();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('VolumeManager: projected volumes', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'volume-manager-spec-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const pod: Pod = {
    metadata: { name: 'web', namespace: 'team', uid: 'uid-1', labels: { app: 'web' } },
    spec: {
      serviceAccountName: 'robot',
      containers: [{ name: 'main', image: 'busybox:1.36' }],
      volumes: [
        {
          name: 'access',
          projected: {
            defaultMode: 0o640,
            sources: [
              { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 600 } },
              {
                downwardAPI: {
                  items: [
                    { path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } },
                    { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                  ],
                },
              },
            ],
          },
        },
      ],
    },
  };
  const facts = { nodeName: 'n', hostIPs: [], podIPs: [], allocatableMilliCpu: 0, allocatableMemory: 0 };

  it('writes the token beside the downward API files and swaps in a new one through ..data when it is due', async () => {
    const clock = { now: 0 };
    const issuer = fakeIssuer(clock);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    const volumes = new VolumeManager(root, {} as ConfigObjects, tokens);
    const dir = (await volumes.setUp(pod, facts)).get('access')!.path;
    expect(await readFile(join(dir, 'token'), 'utf8')).toBe('token-1');
    expect(await readFile(join(dir, 'namespace'), 'utf8')).toBe('team');
    expect(await readFile(join(dir, 'labels'), 'utf8')).toBe('app="web"');
    expect(await readlink(join(dir, 'token'))).toBe('..data/token');
    expect(issuer.calls[0]).toEqual({ namespace: 'team', serviceAccount: 'robot', audience: 'vault', expirationSeconds: 600, podName: 'web', podUid: 'uid-1' });
    const first = await readlink(join(dir, '..data'));
    await volumes.setUp(pod, facts);
    expect(await readlink(join(dir, '..data'))).toBe(first);
    clock.now = 481_000;
    await volumes.setUp(pod, facts);
    expect(await readFile(join(dir, 'token'), 'utf8')).toBe('token-2');
    const second = await readlink(join(dir, '..data'));
    expect(second).not.toBe(first);
    expect((await readdir(dir)).filter((e) => e.startsWith('..')).sort()).toEqual(['..data', second].sort());
    await volumes.tearDown('uid-1');
    tokens.stop();
  });

  it('reports a TokenRequest that fails as a volume error', async () => {
    const clock = { now: 0 };
    const issuer = fakeIssuer(clock);
    issuer.failing(true);
    const tokens = new ServiceAccountTokenManager(
      issuer.issue,
      () => undefined,
      () => clock.now,
    );
    const volumes = new VolumeManager(root, {} as ConfigObjects, tokens);
    await expect(volumes.setUp(pod, facts)).rejects.toThrow(/cannot get a token for service account team\/robot/);
  });
});
