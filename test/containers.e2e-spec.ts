// The control plane in containers, as a user runs it: the image built from docker/Dockerfile, the compose
// file brought up with Debian's docker-compose on an engine of this test's own, and kubectl on the host.
// No registry serves base images here, so the test makes the Dockerfile's base itself (debootstrap and
// this machine's node). It runs as root (to start dockerd), installs Debian's docker.io, docker-compose
// and debootstrap when they are missing, and is skipped, saying why, where no engine can be started.
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { parse as parseYaml } from 'yaml';
import { freeLoopbackPort } from './support/apiserver-process';
import { ensureDebianPackages } from '@svc/cri';
import { leaseDockerDataRoot, type DockerDataRoot } from './support/docker-data-cache';
import { DOCKER, DOCKER_COMPOSE, startDockerEngineSync, type DockerEngine } from './support/docker-engine';
import { kubectl, spawnKubectl } from './support/kubectl-run';
import { DEBOOTSTRAP, importStandInNodeImage } from './support/stand-in-node-image';

const root = join(__dirname, '..');
const BASE_IMAGE = 'node:20-bookworm-slim'; // the Dockerfile's default, stood in for
const IMAGE = 'svc-e2e:latest';
const BUILD_STAGE_IMAGE = 'svc-e2e-build:latest'; // tagged, so that pruning old builds keeps this one's cache
const MAX_ADDED_BYTES = 50 * 1024 * 1024;
const HOST_OWNER = 4321; // neither root nor the image's user: the connection file must follow the directory's owner

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

let dataRoot: DockerDataRoot | undefined;

function engineOrSkipReason(): DockerEngine | string {
  if (process.platform !== 'linux') return 'Docker engines run on Linux only';
  if (process.getuid?.() !== 0) return 'starting a Docker engine of its own needs root';
  const missing = ensureDebianPackages([
    { name: 'docker.io', provides: '/usr/sbin/dockerd' },
    { name: 'docker-compose', provides: DOCKER_COMPOSE },
    { name: 'debootstrap', provides: DEBOOTSTRAP },
  ]);
  if (missing) return missing;
  dataRoot = leaseDockerDataRoot();
  const started = startDockerEngineSync({ dataRoot: dataRoot.path });
  if (typeof started === 'string') dataRoot.release();
  else if (started.pid) dataRoot.recordEngine(started.pid);
  return started;
}

const started = engineOrSkipReason();
const engine = typeof started === 'string' ? undefined : started;
if (typeof started === 'string') console.log(`Container tests are skipped: ${started}`);

(engine ? describe : describe.skip)('the control plane in containers', () => {
  const docker = engine!;
  const project = `svce2e${process.pid}`;
  let work = '';
  let connectionDir = '';
  let port = 0;
  let composeEnv: Record<string, string> = {};
  const figures: string[] = [];

  const compose = (args: string[], timeoutMs = 3 * 60_000) =>
    docker.run(DOCKER_COMPOSE, ['--project-name', project, '--file', join(root, 'docker/compose.yml'), ...args], { env: composeEnv, timeoutMs });
  const containerOf = async (service: string) => (await compose(['ps', '--quiet', service])).stdout.trim();
  const kube = (args: string[]) => kubectl(['--kubeconfig', join(connectionDir, 'svcconfig'), ...args], {});
  const imageSize = async (image: string) => Number((await docker.docker(['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim());

  beforeAll(async () => {
    work = mkdtempSync('/tmp/svc-containers-');
    connectionDir = join(work, 'connection');
    mkdirSync(connectionDir);
    chownSync(connectionDir, HOST_OWNER, HOST_OWNER);
    port = await freeLoopbackPort();
    composeEnv = { SVC_IMAGE: IMAGE, SVC_PORT: String(port), SVC_CONNECTION_DIR: connectionDir };

    figures.push(`engine data: ${dataRoot?.note ?? 'its own'}`);
    // What a killed run may have left on a cached engine: the volumes must start fresh.
    await compose(['down', '--volumes', '--timeout', '1']);

    let since = Date.now();
    const made = await importStandInNodeImage(docker, work, BASE_IMAGE);
    figures.push(made ? `stand-in base made and imported in ${seconds(since)}` : 'stand-in base kept from an earlier run');
    since = Date.now();
    // Host networking for the build's own downloads: this engine makes no bridge or NAT for them.
    const build = ['build', '--network=host', '--force-rm', '--file', join(root, 'docker/Dockerfile')];
    await docker.docker([...build, '--target', 'build', '--tag', BUILD_STAGE_IMAGE, root], 15 * 60_000);
    await docker.docker([...build, '--tag', IMAGE, root], 5 * 60_000);
    figures.push(`image built in ${seconds(since)}`);
    // Bounds the cache: the layers of earlier builds, untagged now, go; this build's stay for the next run.
    await docker.docker(['image', 'prune', '--force']);
  }, 25 * 60_000);

  afterAll(async () => {
    if (figures.length) console.log(`Container figures:\n  ${figures.join('\n  ')}`);
    await compose(['down', '--volumes', '--timeout', '5']).catch(() => undefined);
    await docker.docker(['container', 'prune', '--force']).catch(() => undefined);
    await docker.docker(['volume', 'prune', '--force']).catch(() => undefined);
    await docker.stop();
    dataRoot?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 3 * 60_000);

  it('the compose file runs the embedded store by default and the API server on the replica set with --profile mongodb', async () => {
    // Not run here: no registry serves the mongo image. Its configuration is what can be checked.
    type Service = { command: string[]; profiles?: string[]; healthcheck?: { test: string[] } };
    const rendered = async (args: string[], env: Record<string, string> = {}) =>
      parseYaml(
        (await docker.run(DOCKER_COMPOSE, ['--file', join(root, 'docker/compose.yml'), ...args, 'config'], { env: { ...composeEnv, ...env } })).stdout,
      ) as {
        services: Record<string, Service>;
      };
    const plain = await rendered([]);
    expect(plain.services.apiserver.command).toContain('--storage-backend=embedded');
    expect(plain.services.mongodb.profiles).toEqual(['mongodb']);

    const mongo = await rendered(['--profile', 'mongodb'], { SVC_STORAGE_BACKEND: 'mongodb' });
    expect(mongo.services.apiserver.command).toEqual(
      expect.arrayContaining(['--storage-backend=mongodb', '--store-servers=mongodb://mongodb:27017/svc?replicaSet=rs0']),
    );
    // The member announces the name the API server reaches it by, or the driver cannot find the primary.
    expect(mongo.services.mongodb.command.join(' ')).toContain('--replSet rs0');
    expect(mongo.services.mongodb.healthcheck?.test.join(' ')).toContain("host: 'mongodb:27017'");
  }, 60_000);

  it(
    'the image adds at most 50 MB to its base and holds only what the processes need',
    async () => {
      const added = (await imageSize(IMAGE)) - (await imageSize(BASE_IMAGE));
      figures.push(`image adds ${(added / 1024 / 1024).toFixed(1)} MB to its base`);
      expect(added).toBeLessThanOrEqual(MAX_ADDED_BYTES);

      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
      const bins = Object.keys(manifest.bin);
      const script = [
        'set -e',
        'id -u',
        'stat -c "%u %a" /var/lib/svc /var/run/svc',
        // every executable of the package, on PATH and running
        ...bins.map((bin) => `${bin} --version`),
        // nothing but the processes: no benchmarks, tests, testing kits, source maps or development dependencies
        'test ! -e /app/dist/bench',
        'test -z "$(find /app -name "*.spec.js" -o -name "*.e2e-spec.js" -o -name "*.map" -o -name "*.ts" -o -path "*/src/testing")"',
        'for dev in typescript jest @swc/core eslint prettier tsx @kubernetes/client-node; do test ! -e /app/node_modules/$dev; done',
        'du -sk /app/node_modules /app/dist | cut -f1',
      ].join('\n');
      const { stdout } = await docker.docker(['run', '--rm', '--network=none', IMAGE, 'sh', '-c', script]);
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toBe('1000');
      expect(lines.slice(1, 3)).toEqual(['1000 750', '1000 750']);
      for (const [i, bin] of bins.entries()) expect(lines[3 + i]).toBe(`${bin} v${manifest.version}`);
      figures.push(`of which node_modules ${lines.at(-2)} KiB, dist ${lines.at(-1)} KiB on disk`);

      const config = JSON.parse((await docker.docker(['image', 'inspect', '--format', '{{json .Config}}', IMAGE])).stdout);
      expect(config.User).toBe('1000:1000');
      expect(config.Healthcheck.Test).toEqual(['CMD', 'node', '/app/docker/healthcheck.js']);
    },
    2 * 60_000,
  );

  it(
    'compose brings the control plane up as a non-root user; kubectl on the host creates a Deployment and sees its ReplicaSet and pods',
    async () => {
      await compose(['up', '--detach', '--no-build']);
      // The host's connection file: written once the API server is ready, owned by the directory's owner.
      const file = join(connectionDir, 'svcconfig');
      await eventually(() => expect(statSync(file).uid).toBe(HOST_OWNER), 30_000, 200);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toContain(`server: https://127.0.0.1:${port}`);

      for (const service of ['apiserver', 'controller-manager', 'scheduler']) {
        const id = await containerOf(service);
        expect((await docker.docker(['exec', id, 'id', '-u'])).stdout.trim()).toBe('1000');
      }
      for (const service of ['controller-manager', 'scheduler']) {
        await eventually(
          async () =>
            expect((await docker.docker(['inspect', '--format', '{{.State.Health.Status}}', await containerOf(service)])).stdout.trim()).toBe('healthy'),
          60_000,
          500,
        );
      }

      await kube(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
      await eventually(
        async () => {
          const replicaSets = JSON.parse((await kube(['get', 'replicasets', '-l', 'app=web', '-o', 'json'])).stdout).items;
          expect(replicaSets).toHaveLength(1);
          expect(replicaSets[0].metadata.ownerReferences[0]).toMatchObject({ kind: 'Deployment', name: 'web' });
          const pods = JSON.parse((await kube(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items;
          expect(pods).toHaveLength(2);
          expect(pods[0].metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', name: replicaSets[0].metadata.name });
        },
        60_000,
        500,
      );
    },
    5 * 60_000,
  );

  it(
    'docker stop ends each process gracefully, with status 0, well within 10 s; the API server with a watch open',
    async () => {
      const stop = async (service: string) => {
        const id = await containerOf(service);
        const since = Date.now();
        await docker.docker(['stop', '--time=10', id]);
        const elapsed = Date.now() - since;
        figures.push(`docker stop ${service}: ${elapsed} ms`);
        expect(elapsed).toBeLessThan(10_000);
        expect((await docker.docker(['inspect', '--format', '{{.State.ExitCode}}', id])).stdout.trim()).toBe('0');
      };
      // Dependents first, as `docker compose stop` does.
      await stop('scheduler');
      await stop('controller-manager');
      const watch = spawnKubectl(['--kubeconfig', join(connectionDir, 'svcconfig'), 'get', 'deployments', '--watch', '--output=name'], {}, 60_000);
      try {
        await watch.waitForOutput(/deployment.apps\/web/, 20_000);
        await stop('apiserver');
      } finally {
        await watch.stop();
      }
    },
    2 * 60_000,
  );

  const webObjects = async () => {
    const { stdout } = await kube(['get', 'deployments,replicasets,pods', '-l', 'app=web', '-o', 'name']);
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(4);
    expect(stdout).toContain('deployment.apps/web');
  };

  it(
    'after down and up again, the objects are still there',
    async () => {
      await compose(['down', '--timeout', '5']);
      await compose(['up', '--detach', '--no-build']);
      await eventually(webObjects, 60_000, 500);
    },
    5 * 60_000,
  );

  it(
    "the README's backup, restored into fresh volumes, brings the objects back",
    async () => {
      const backup = join(work, 'svc-backup.tgz');
      const shell = (command: string) => docker.run('sh', ['-ec', command], { timeoutMs: 2 * 60_000 });
      await compose(['stop', 'apiserver']);
      await shell(`${DOCKER} run --rm -v svc-data:/var/lib/svc:ro -v svc-config:/var/run/svc:ro ${IMAGE} tar -C / -cz var/lib/svc var/run/svc > ${backup}`);
      await compose(['start', 'apiserver']);

      await compose(['down', '--volumes', '--timeout', '5']);
      await compose(['up', '--no-start', '--no-build']);
      await shell(`${DOCKER} run --rm -i -v svc-data:/var/lib/svc -v svc-config:/var/run/svc ${IMAGE} tar -C / -xz < ${backup}`);
      await compose(['up', '--detach', '--no-build']);
      await eventually(webObjects, 60_000, 500);
    },
    5 * 60_000,
  );
});
