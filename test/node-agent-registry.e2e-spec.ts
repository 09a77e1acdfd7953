// Pods pulling their images from a registry, the real pull path: Debian's docker-registry on loopback
// (one open, one behind basic authentication), an image built from busybox-static pushed into each with
// skopeo, containerd told by a registries.yaml (k3s's format, written to its hosts directory as npm
// start writes it) that the registry speaks plain HTTP, and the node agent giving CRI the credentials
// of the pod's imagePullSecrets (or its ServiceAccount's) for the image's registry.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busyboxImageArchive, localRuntimeUnavailable } from '@svc/cri/testing';
import { parseRegistriesConfig, writeRegistryHosts } from '@svc/cri';
import { eventually } from '@svc/runtime/testing';
import { stringify } from 'yaml';
import { kubectl } from './support/kubectl-run';
import { registryUnavailable, startImageRegistry, type ImageRegistry } from './support/image-registry';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable() ?? registryUnavailable();
if (unavailable) console.warn(`Image registry pull tests are skipped: ${unavailable}`);
const describeWithRegistry = unavailable ? describe.skip : describe;

const USER = { name: 'puller', password: 'pull-secret-1' };

interface EventItem {
  reason: string;
  message: string;
  type: string;
}

describeWithRegistry('pulling images from a registry on loopback', () => {
  let dir: string;
  let open: ImageRegistry;
  let locked: ImageRegistry;
  let cluster: NodeCluster;
  const env = () => cluster.env();
  const pod = async (name: string) => JSON.parse((await kubectl(['get', 'pod', name, '-o', 'json'], env())).stdout);
  const events = async (name: string): Promise<EventItem[]> =>
    JSON.parse((await kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'], env())).stdout).items;

  /** A pod printing a line from the image `image`, pulled every time. */
  const puller = (name: string, image: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image, imagePullPolicy: 'Always', command: ['sh', '-c', `echo ${name} ran`] }],
      ...spec,
    },
  });

  async function succeeds(name: string): Promise<void> {
    await eventually(
      async () => {
        const status = (await pod(name)).status;
        expect(JSON.stringify({ phase: status?.phase, containers: status?.containerStatuses })).toMatch(/"phase":"Succeeded"/);
      },
      60_000,
      250,
    );
    expect((await kubectl(['logs', name], env())).stdout).toBe(`${name} ran\n`);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-image-pulls-'));
    const archive = join(dir, 'app.tar');
    await writeFile(archive, await busyboxImageArchive({ references: ['registry.test/app:1'] }));
    [open, locked] = await Promise.all([startImageRegistry(), startImageRegistry({ user: USER })]);
    await Promise.all([open.push(archive, 'tools/app:1'), locked.push(archive, 'private/app:1')]);
    // A registry on loopback speaks plain HTTP: its registries.yaml mirror endpoint says so, as with k3s.
    const registries = parseRegistriesConfig(
      stringify({ mirrors: Object.fromEntries([open, locked].map((r) => [r.host, { endpoint: [`http://${r.host}`] }])) }),
    );
    const hostsDir = join(dir, 'registries.d');
    await writeRegistryHosts(hostsDir, registries, []);
    cluster = await startNodeCluster({ containerd: { registryHostsDir: hostsDir } });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([open?.stop(), locked?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs a pod whose image is pulled from the registry, saying so in its events', async () => {
    const image = `${open.host}/tools/app:1`;
    await cluster.apply(puller('from-registry', image));
    await succeeds('from-registry');
    const seen = await events('from-registry');
    expect(seen.map((e) => [e.reason, e.message])).toEqual(
      expect.arrayContaining([
        ['Pulling', `Pulling image "${image}"`],
        ['Pulled', expect.stringMatching(new RegExp(`^Successfully pulled image "${image.replace(/[.]/g, '\\.')}" in `))],
      ]),
    );
    expect((await pod('from-registry')).status.containerStatuses[0].imageID).toMatch(/sha256:[0-9a-f]{64}$/);
  }, 90_000);

  it('fails a pull from a registry behind basic authentication without credentials, as the kubelet reports it, and backs off', async () => {
    const image = `${locked.host}/private/app:1`;
    await cluster.apply(puller('no-secret', image));
    await eventually(
      async () => {
        const waiting = (await pod('no-secret')).status?.containerStatuses?.[0]?.state?.waiting;
        expect(waiting?.reason).toBe('ImagePullBackOff');
        expect(waiting?.message).toBe(`Back-off pulling image "${image}"`);
      },
      30_000,
      250,
    );
    // The runtime's error as the kubelet passes it on: a Go gRPC status, here containerd's words for the 401.
    const quoted = image.replace(/[.]/g, '\\.');
    const failed = (await events('no-secret')).filter((e) => e.reason === 'Failed').map((e) => e.message);
    expect(failed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^Failed to pull image "${quoted}": rpc error: code = Unknown desc = failed to pull and unpack image "${quoted}": failed to resolve reference "${quoted}": .*401 Unauthorized$`,
          ),
        ),
        'Error: ErrImagePull',
        'Error: ImagePullBackOff',
      ]),
    );
    expect(await events('no-secret')).toContainEqual(
      expect.objectContaining({ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"` }),
    );
  }, 60_000);

  it("pulls with a kubernetes.io/dockerconfigjson Secret named in the pod's imagePullSecrets, and with its ServiceAccount's", async () => {
    const image = `${locked.host}/private/app:1`;
    await kubectl(
      [
        'create',
        'secret',
        'docker-registry',
        'regcred',
        `--docker-server=${locked.host}`,
        `--docker-username=${USER.name}`,
        `--docker-password=${USER.password}`,
      ],
      env(),
    );
    // A secret for another registry is not offered to this one, and a wrong one does not keep the right one from working.
    await kubectl(['create', 'secret', 'docker-registry', 'other', `--docker-server=${open.host}`, '--docker-username=x', '--docker-password=y'], env());
    await cluster.apply(puller('with-secret', image, { imagePullSecrets: [{ name: 'other' }, { name: 'regcred' }] }), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'pulling' },
      imagePullSecrets: [{ name: 'regcred' }],
    });
    await succeeds('with-secret');
    // The ServiceAccount admission gives a pod that names none the account's pull secrets.
    await cluster.apply(puller('by-account', image, { serviceAccountName: 'pulling' }));
    expect((await pod('by-account')).spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    await succeeds('by-account');
  }, 90_000);
});
