import type { Pod, Secret } from '@svc/api';
import type { Client } from '@svc/client';
import type { AuthConfig, CriClient, PodSandboxConfig } from '@svc/cri';
import { credentialLookup, keyringLookup } from './credentials';
import { ImageManager, ImagePullError, type CredentialLookup } from './image-manager';

// No registry is reachable from the test machines: these cases drive the image manager against a
// stand-in of the runtime's image service that records what CRI PullImage was asked.

interface PullCall {
  image: string;
  auth?: AuthConfig;
  at: number;
}

function fakeImageService(options: { acceptAuth?: (auth: AuthConfig | undefined) => boolean } = {}) {
  const calls: PullCall[] = [];
  let active = 0;
  let maxActive = 0;
  const releases: Array<() => void> = [];
  let hold = false;
  const cri = {
    imageStatus: async () => undefined,
    pullImage: async (image: string, auth?: AuthConfig) => {
      calls.push({ image, auth, at: clock.now() });
      active++;
      maxActive = Math.max(maxActive, active);
      if (hold) await new Promise<void>((resolve) => releases.push(resolve));
      active--;
      if (options.acceptAuth && !options.acceptAuth(auth)) throw new Error('401 Unauthorized');
      return `sha256:${image}`;
    },
  } as unknown as CriClient;
  return {
    cri,
    calls,
    maxActive: () => maxActive,
    holdPulls: () => (hold = true),
    releaseOne: () => releases.shift()?.(),
    waiting: () => releases.length,
  };
}

/** A manual clock: sleeping moves time on at once, and the sleeps are recorded. */
const clock = {
  time: 0,
  sleeps: [] as number[],
  now() {
    return this.time;
  },
  async sleep(ms: number) {
    this.sleeps.push(ms);
    this.time += ms;
  },
};

function pod(name: string, images: string[], pullSecrets: string[] = []): Pod {
  return {
    metadata: { name, namespace: 'team', uid: `uid-${name}` },
    spec: {
      imagePullSecrets: pullSecrets.map((n) => ({ name: n })),
      containers: images.map((image, i) => ({ name: `c${i}`, image, imagePullPolicy: 'Always' as const })),
    },
  };
}

const sandbox: PodSandboxConfig = { metadata: { name: 'p', namespace: 'team', uid: 'u', attempt: 0 } };
const noCredentials: CredentialLookup = async () => [];
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ImageManager', () => {
  beforeEach(() => {
    clock.time = 0;
    clock.sleeps = [];
  });

  it('passes the credentials of the pod imagePullSecrets for the image registry to CRI PullImage', async () => {
    const dockerConfig = (auths: Record<string, unknown>) => Buffer.from(JSON.stringify({ auths })).toString('base64');
    const secrets: Record<string, Secret> = {
      'private-registry': {
        metadata: { name: 'private-registry', namespace: 'team' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': dockerConfig({ 'registry.example:5000': { username: 'puller', password: 'pw' } }) },
      },
      'hub-only': {
        metadata: { name: 'hub-only', namespace: 'team' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': dockerConfig({ 'https://index.docker.io/v1/': { auth: Buffer.from('hub:secret').toString('base64') } }) },
      },
    };
    const asked: string[] = [];
    const client = {
      secrets: {
        get: async (name: string, params: { namespace?: string }) => {
          asked.push(`${params.namespace}/${name}`);
          return secrets[name];
        },
      },
    } as unknown as Client;
    const service = fakeImageService({ acceptAuth: (auth) => auth?.username === 'puller' });
    const images = new ImageManager(service.cri, { serialize: true, qps: 0, burst: 10 }, credentialLookup(client, undefined, ''), () => undefined);
    const target = pod('web', ['registry.example:5000/team/app:1.0'], ['hub-only', 'private-registry']);
    const container = target.spec.containers[0];
    expect(await images.ensure(target, container, sandbox)).toBe('sha256:registry.example:5000/team/app:1.0');
    expect(asked).toEqual(['team/hub-only', 'team/private-registry']);
    // No serverAddress, as the kubelet sends none: containerd parses it as a URL, which `host:port` is not.
    expect(service.calls.map((c) => c.auth)).toEqual([{ username: 'puller', password: 'pw', auth: '', serverAddress: '' }]);

    // An image of Docker Hub gets the hub credentials (`auth` read as user and password); a refused
    // credential is not followed by an anonymous try, as the kubelet makes none.
    service.calls.length = 0;
    const hub = pod('hub', ['busybox:1.36'], ['hub-only', 'private-registry']);
    await expect(images.ensure(hub, hub.spec.containers[0], sandbox)).rejects.toMatchObject({ reason: 'ErrImagePull', message: '401 Unauthorized' });
    expect(service.calls.map((c) => c.auth)).toEqual([{ username: 'hub', password: 'secret', auth: '', serverAddress: '' }]);

    // Without a credential for the registry, one anonymous pull.
    service.calls.length = 0;
    const open = pod('open', ['other.example/app:1'], ['hub-only', 'private-registry']);
    await expect(images.ensure(open, open.spec.containers[0], sandbox)).rejects.toBeInstanceOf(ImagePullError);
    expect(service.calls.map((c) => c.auth)).toEqual([undefined]);
  });

  it("finds credentials as the kubelet's keyring does: globs per host label, the port, path prefixes, most specific first", () => {
    const auth = (user: string) => ({ username: user, password: 'pw' });
    const entries: Array<[string, { username: string; password: string }]> = [
      ['https://registry.example:5000/v2/', auth('v2-path-is-the-host')],
      ['registry.example:5000/team', auth('team')],
      ['registry.example:5000/other', auth('other-path')],
      ['*.example:5000', auth('glob')],
      ['registry.example', auth('no-port')],
      ['http://registry.example:5000/team/app', auth('repository')],
    ];
    const users = (image: string) => keyringLookup(entries, image).map((a) => a.username);
    expect(users('registry.example:5000/team/app:1.0')).toEqual(['repository', 'team', 'v2-path-is-the-host', 'glob']);
    expect(users('registry.example:5000/solo:1')).toEqual(['v2-path-is-the-host', 'glob']);
    expect(users('registry.example/team/app:1')).toEqual(['no-port']);
    expect(users('sub.registry.example:5000/team/app:1')).toEqual([]);
    expect(keyringLookup([['https://index.docker.io/v1/', auth('hub')]], 'busybox')).toEqual([
      { username: 'hub', password: 'pw', auth: '', serverAddress: '' },
    ]);
  });

  it('with serializeImagePulls pulls one image at a time, in order', async () => {
    const service = fakeImageService();
    service.holdPulls();
    const images = new ImageManager(service.cri, { serialize: true, qps: 0, burst: 10 }, noCredentials, () => undefined);
    const p = pod('many', ['a:1', 'b:1', 'c:1']);
    const pulls = p.spec.containers.map((c) => images.ensure(p, c, sandbox));
    await settle();
    expect(service.calls.map((c) => c.image)).toEqual(['a:1']);
    service.releaseOne();
    await settle();
    expect(service.calls.map((c) => c.image)).toEqual(['a:1', 'b:1']);
    service.releaseOne();
    await settle();
    service.releaseOne();
    await Promise.all(pulls);
    expect(service.calls.map((c) => c.image)).toEqual(['a:1', 'b:1', 'c:1']);
    expect(service.maxActive()).toBe(1);
  });

  it('without serializeImagePulls pulls in parallel', async () => {
    const service = fakeImageService();
    service.holdPulls();
    const images = new ImageManager(service.cri, { serialize: false, qps: 0, burst: 10 }, noCredentials, () => undefined);
    const p = pod('many', ['a:1', 'b:1', 'c:1']);
    const pulls = p.spec.containers.map((c) => images.ensure(p, c, sandbox));
    await settle();
    expect(service.waiting()).toBe(3);
    for (let i = 0; i < 3; i++) service.releaseOne();
    await Promise.all(pulls);
    expect(service.maxActive()).toBe(3);
  });

  it('registryPullQPS and registryBurst: a pull over the rate fails with ErrImagePull (pull QPS exceeded) and backs off', async () => {
    const service = fakeImageService();
    const events: string[] = [];
    const images = new ImageManager(service.cri, { serialize: false, qps: 2, burst: 2, clock: clock }, noCredentials, (_p, _t, reason, message) =>
      events.push(`${reason}: ${message}`),
    );
    const p = pod('many', ['a:1', 'b:1', 'c:1', 'd:1']);
    const [a, b, c, d] = p.spec.containers;
    // Two at once (the burst); the third is refused, not queued.
    await images.ensure(p, a, sandbox);
    await images.ensure(p, b, sandbox);
    const refused = await images.ensure(p, c, sandbox).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImagePullError);
    expect(refused).toMatchObject({ reason: 'ErrImagePull', message: 'pull QPS exceeded' });
    expect(events).toContain('Failed: Failed to pull image "c:1": pull QPS exceeded');
    expect(await images.ensure(p, c, sandbox).catch((e: unknown) => e)).toMatchObject({ reason: 'ImagePullBackOff' });
    // Half a second later (2 per second) another pull gets a token.
    clock.time += 500;
    await images.ensure(p, d, sandbox);
    expect(service.calls.map((call) => call.image)).toEqual(['a:1', 'b:1', 'd:1']);
  });
});
