// An operator from its first command to a cluster, as a user makes one: the framework's packages
// published to a registry on loopback and installed from it (the `@svc` scope pointed at it, as at a
// company's registry), `svc-operator init` run from there, the project installed and built, its
// image made over the Node.js base `npm start` makes, deployed with the YAML the operator prints
// into `npm start`'s cluster (its own containerd, the service proxy, the cluster DNS) with two
// replicas that reach the API server in-cluster. Then: admission stays in force while a replica
// restarts and after one is killed with -9, the leader fails over, a deletion waits for the
// finalizer and completes, and the derived RBAC is enough and no more (one rule taken away, the
// operator fails).
// It runs as root (containerd, bridges, nftables) and is skipped otherwise, saying why. Most of its
// time is packing the libraries and `npm install`; better-sqlite3's binding (for the project's test
// environment) comes as a local prebuild made from the repository's own (see native-prebuilds.ts).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runtimeHostProblem } from '@svc/cri';
import { BUILTIN_RESOURCES, Client, loadClientConfig, type ResourceInfo } from '@svc/client';
import { isForbidden, isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { appImageArchive } from './support/app-image';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startLocalNpmRegistry, type LocalNpmRegistry } from './support/local-npm-registry';
import { localPrebuildsEnv } from './support/native-prebuilds';
import { packedLibraries } from './support/packed-libraries';
import { seedLockFile } from './support/seed-lock-file';

const hostProblem = runtimeHostProblem();
if (hostProblem) console.warn(`the operator on a cluster is skipped: ${hostProblem}`);
const describeAsRoot = hostProblem ? describe.skip : describe;

const run = promisify(execFile);
const MINUTE = 60_000;
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// Names of this file's own: its bridges, cgroups, ranges and directories never meet another run's.
const tag = `hoc${Math.floor(Math.random() * 90) + 10}`;
const subnet = 100 + Math.floor(Math.random() * 100);

const NAME = 'website-operator';
const NAMESPACE = `${NAME}-system`;
const GROUP = 'e2e.example.com';
const IMAGE = `svc.local/${NAME}:e2e`;
const SERVICE_ACCOUNT = `system:serviceaccount:${NAMESPACE}:${NAME}`;
const websitesInfo: ResourceInfo = { group: GROUP, version: 'v1', resource: 'websites', namespaced: true, kind: 'Website' };

interface Website {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; finalizers?: string[]; deletionTimestamp?: string };
  spec: { message: string; author?: string };
  status?: { observedGeneration?: number };
}

/** Runs a command to its end, failing with its output. */
async function sh(command: string, args: string[], cwd: string, timeout: number, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true', ...env } });
    return stdout + stderr;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

describeAsRoot('an operator scaffolded from a registry, built, and deployed with its manifests on two replicas', () => {
  let work = '';
  let registry: LocalNpmRegistry | undefined;
  let project = '';
  let manifests = '';
  let launcher: ChildProcess | undefined;
  let launcherOutput = '';
  let client: Client;
  const figures: string[] = [];
  const env = () => ({ KUBECONFIG: join(work, 'data', 'svcconfig'), HOME: work });
  const websites = () => client.resource<Website>(websitesInfo).inNamespace('default');

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), `${tag}-operator-`));
    registry = await startLocalNpmRegistry();
    const host = new URL(registry.url).host;
    // The scope's registry and the token to publish to it, as a company's registry is configured.
    writeFileSync(join(work, '.npmrc'), `@svc:registry=${registry.url}\n//${host}/:_authToken=${registry.token}\n`);

    let since = Date.now();
    const build = await packedLibraries(join(work, 'build'));
    const packs = readdirSync(join(build, 'packs')).filter((f) => f.endsWith('.tgz'));
    for (const pack of packs) await sh('npm', ['publish', join(build, 'packs', pack), '--ignore-scripts'], work, MINUTE);
    figures.push(`${packs.length} packages packed and published in ${seconds(since)}`);

    since = Date.now();
    // A cache of its own: npm exec reuses a package of the same name and version it ran before.
    await sh(
      'npm',
      [
        'exec',
        '--yes',
        '--cache',
        join(work, 'npx-cache'),
        `--package=@svc/scaffold@${version}`,
        '--',
        'svc-operator',
        'init',
        NAME,
        '--kind',
        'Website',
        '--group',
        GROUP,
      ],
      work,
      2 * MINUTE,
    );
    project = join(work, NAME);
    // The project names the scope's registry (no token: installing needs none); the third-party
    // packages come from npm's cache at the versions the repository's lock file holds.
    writeFileSync(join(project, '.npmrc'), `@svc:registry=${registry.url}\n`);
    seedLockFile(project);
    await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project, 20 * MINUTE, await localPrebuildsEnv(join(work, 'prebuilds')));
    figures.push(`scaffolded and installed from the registry in ${seconds(since)}`);

    since = Date.now();
    manifests = await sh('npm', ['run', '--silent', 'manifests', '--', '--image', IMAGE], project, 5 * MINUTE);
    // The image holds what the Dockerfile's last stage copies: package.json, dist and the production node_modules.
    await sh('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], project, 5 * MINUTE);
    mkdirSync(join(work, 'data', 'images'), { recursive: true });
    const archive = await appImageArchive({
      references: [IMAGE],
      projectDir: project,
      paths: ['package.json', 'dist', 'node_modules'],
      workingDir: '/app',
      config: {
        env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NODE_ENV=production'],
        user: '1000',
        cmd: ['node', 'dist/main.js', '--leader-elect'],
      },
    });
    writeFileSync(join(work, 'data', 'images', `${NAME}.tar`), archive);
    figures.push(`built, manifests written and image made (${Math.round(archive.length / 1024 ** 2)} MB) in ${seconds(since)}`);

    since = Date.now();
    const port = await freeLoopbackPort();
    launcher = spawn(process.execPath, [join(ROOT, 'bin', 'svc-control-plane.js'), `--service-cluster-ip-range=10.96.${subnet}.0/24`], {
      cwd: ROOT,
      env: {
        ...process.env,
        SVC_CONTAINER_RUNTIME_ENDPOINT: '',
        SVC_DATA: join(work, 'data'),
        // The ingress controller and the metrics server take fixed host ports, which other tests' clusters use.
        SVC_INGRESS: 'off',
        SVC_METRICS_SERVER: 'off',
        SVC_PORT: String(port),
        SVC_NETWORK_PREFIX: tag,
        SVC_NODE_CIDR: `10.243.${subnet}.0/24`,
        SVC_CLUSTER_CIDR: `10.${subnet}.0.0/16`,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (c: Buffer) => (launcherOutput += c.toString()));
    launcher.stderr?.on('data', (c: Buffer) => (launcherOutput += c.toString()));
    await eventually(
      async () => {
        expect(launcher?.exitCode).toBeNull();
        expect(launcherOutput).toMatch(/node \S+ running pods/);
        expect(launcherOutput).toContain(`imported the images of ${join(work, 'data', 'images', `${NAME}.tar`)}`);
      },
      4 * MINUTE,
      250,
    );
    client = new Client({ ...(await loadClientConfig({ svcconfig: env().KUBECONFIG })), qps: -1 });
    figures.push(`cluster started in ${seconds(since)}`);

    since = Date.now();
    writeFileSync(join(work, 'operator.yaml'), manifests);
    await kubectl(['apply', '-f', join(work, 'operator.yaml')], env(), MINUTE);
    await kubectl(['rollout', 'status', '-n', NAMESPACE, `deployment/${NAME}`, '--timeout=180s'], env(), 185_000);
    figures.push(`deployed, two replicas ready in ${seconds(since)}`);
  }, 45 * MINUTE);

  afterAll(async () => {
    if (figures.length) console.log(`Operator on a cluster:\n  ${figures.join('\n  ')}`);
    client?.close();
    if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
      const exited = new Promise((resolve) => launcher?.once('exit', resolve));
      launcher.kill('SIGTERM');
      await exited;
    }
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 3 * MINUTE);

  const operatorPods = async (): Promise<Array<{ name: string; uid: string; ready: boolean; ip: string }>> => {
    const list = await client.pods.list({ namespace: NAMESPACE, labelSelector: `app.kubernetes.io/name=${NAME}` });
    return list.items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .map((p) => ({
        name: p.metadata?.name ?? '',
        uid: p.metadata?.uid ?? '',
        ip: p.status?.podIP ?? '',
        ready: (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      }));
  };
  /** The lease holder's identity (`<pod>_<uuid>`: a restarted process has a new one). */
  const leaderIdentity = async (): Promise<string | undefined> => {
    const lease = await client
      .resource(BUILTIN_RESOURCES.leases)
      .inNamespace(NAMESPACE)
      .get(NAME)
      .catch(() => undefined);
    return lease?.spec?.holderIdentity ?? undefined;
  };
  const leaderPod = async (): Promise<string | undefined> => (await leaderIdentity())?.split('_')[0];

  let serial = 0;
  /** Admission in force: markup refused by the validating webhook, a good Website signed by the defaulting one. */
  async function expectAdmissionInForce(): Promise<void> {
    serial += 1;
    const refused = await websites()
      .create({ metadata: { name: `markup-${serial}` }, spec: { message: '<b>hi</b>' } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused && isForbidden(refused) ? '' : String(refused)).toBe('');
    expect((refused as Error).message).toContain('plain text');
    const made = await websites().create({ metadata: { name: `plain-${serial}` }, spec: { message: 'hi' } });
    expect(made.spec.author).toMatch(/\S/);
    await websites().delete(made.metadata.name);
  }

  it(
    'runs two replicas from the image, in-cluster, one leading, with the webhooks and the reconciler in force',
    async () => {
      const pods = await operatorPods();
      expect(pods.map((p) => p.ready)).toEqual([true, true]);
      // In-cluster configuration: the pods found the API server through KUBERNETES_SERVICE_HOST (the
      // kubernetes Service's ClusterIP, routed by the service proxy) with their token and ca.crt.
      const vars = await kubectl(['exec', '-n', NAMESPACE, pods[0].name, '--', 'sh', '-c', 'echo $KUBERNETES_SERVICE_HOST'], env());
      const kubernetes = await client.services.get('kubernetes', { namespace: 'default' });
      expect(vars.stdout.trim()).toBe(kubernetes.spec?.clusterIP);
      await eventually(async () => expect(pods.map((p) => p.name)).toContain(await leaderPod()), 60_000, 500);

      // The leader installed the configurations, naming the Service in front of both replicas.
      const validating = await eventually(() => client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).get(`${NAME}-validating`), 60_000, 500);
      expect(validating.webhooks?.[0].clientConfig).toMatchObject({ service: { namespace: NAMESPACE, name: `${NAME}-webhooks`, port: 443 } });
      await eventually(() => expectAdmissionInForce(), 60_000, 500);

      await websites().create({ metadata: { name: 'home' }, spec: { message: 'Welcome' } });
      const page = await eventually(() => client.configMaps.get('home', { namespace: 'default' }), 60_000, 500);
      expect(page.data).toEqual({ message: 'Welcome' });
      await eventually(async () => expect((await websites().get('home')).status).toEqual({ observedGeneration: 1 }), 30_000, 500);
    },
    4 * MINUTE,
  );

  it(
    'keeps admission in force while the standby restarts (no replica removes the configurations)',
    async () => {
      const configs = client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations);
      const watch = await configs.watch({ fieldSelector: `metadata.name=${NAME}-validating` });
      const configEvents: string[] = [];
      const following = (async () => {
        for await (const event of watch) if (event.type !== 'BOOKMARK') configEvents.push(event.type);
      })();

      const leader = await leaderPod();
      const standby = (await operatorPods()).find((p) => p.name !== leader);
      expect(standby).toBeDefined();
      // Deleted gracefully (SIGTERM): the replica stops, the ReplicaSet makes another; admission is
      // checked all along, until the new one is ready.
      const deleting = kubectl(['delete', 'pod', '-n', NAMESPACE, standby!.name, '--wait=true', '--timeout=90s'], env(), 95_000);
      let checks = 0;
      const until = Date.now() + 150_000;
      for (;;) {
        await expectAdmissionInForce();
        checks += 1;
        const pods = await operatorPods();
        if (pods.length === 2 && pods.every((p) => p.ready) && !pods.some((p) => p.name === standby!.name)) break;
        expect(Date.now()).toBeLessThan(until);
      }
      await deleting;
      await expectAdmissionInForce();
      watch.stop();
      await following;
      expect(configEvents.filter((type) => type === 'DELETED')).toEqual([]);
      figures.push(`${checks} admission checks in a row held while a replica restarted`);
    },
    4 * MINUTE,
  );

  it(
    'keeps admission in force after the leader is killed with -9, and another process takes the lease',
    async () => {
      const killed = await leaderIdentity();
      const leader = killed?.split('_')[0];
      const pods = await operatorPods();
      const victim = pods.find((p) => p.name === leader);
      const other = pods.find((p) => p.name !== leader);
      expect(victim && other).toBeTruthy();
      // The operator's node process, found on this host by its pod's cgroup.
      const pids = readdirSync('/proc').filter((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        try {
          return readFileSync(`/proc/${entry}/cgroup`, 'utf8').includes(victim!.uid) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('dist/main.js');
        } catch {
          return false;
        }
      });
      expect(pids).toHaveLength(1);
      process.kill(Number(pids[0]), 'SIGKILL');

      // At once, before the endpoint is taken out: the API server finds the connection refused and
      // tries the other replica.
      for (let i = 0; i < 6; i++) await expectAdmissionInForce();
      const since = Date.now();
      // The standby, or the killed pod's restarted container (a new identity): whichever campaigns first once the lease expires, as in Kubernetes.
      const next = await eventually(
        async () => {
          const holder = await leaderIdentity();
          expect(holder).toBeDefined();
          expect(holder).not.toBe(killed);
          return holder!;
        },
        60_000,
        250,
      );
      const by = next.startsWith(`${other!.name}_`) ? 'the standby' : 'the restarted replica';
      figures.push(`leader failed over to ${by} ${seconds(since)} after its process was killed`);
      await expectAdmissionInForce();
      // The new leader reconciles.
      await websites().patch('home', { spec: { message: 'Welcome back' } }, 'merge');
      await eventually(
        async () => expect((await client.configMaps.get('home', { namespace: 'default' })).data).toEqual({ message: 'Welcome back' }),
        60_000,
        500,
      );
    },
    4 * MINUTE,
  );

  it(
    'completes a deletion once the finalizer ran',
    async () => {
      const home = await websites().get('home');
      expect(home.metadata.finalizers).toEqual([`${GROUP}/cleanup`]);
      await websites().delete('home');
      await eventually(
        async () =>
          expect(
            await websites()
              .get('home')
              .then(() => false, isNotFound),
          ).toBe(true),
        60_000,
        250,
      );
      await expect(client.configMaps.get('home', { namespace: 'default' })).rejects.toThrow();
    },
    2 * MINUTE,
  );

  it(
    'has exactly the RBAC it needs: kubectl auth can-i agrees, and without one rule the operator fails',
    async () => {
      const canI = async (args: string[]) => (await runKubectl(['auth', 'can-i', ...args, `--as=${SERVICE_ACCOUNT}`], env())).stdout.trim();
      const asked: Array<[string[], string]> = [
        [['update', `websites.${GROUP}`, '-n', 'default'], 'yes'],
        [['update', `websites.${GROUP}`, '--subresource=status', '-n', 'default'], 'yes'],
        [['update', `websites.${GROUP}`, '--subresource=finalizers', '-n', 'default'], 'yes'],
        [['create', 'configmaps', '-n', 'default'], 'yes'],
        // (events.k8s.io too, which this API server does not serve, so kubectl cannot ask about it)
        [['create', 'events', '-n', 'default'], 'yes'],
        [['update', 'leases.coordination.k8s.io', '-n', NAMESPACE], 'yes'],
        [['create', 'secrets', '-n', NAMESPACE], 'yes'],
        [['patch', 'validatingwebhookconfigurations.admissionregistration.k8s.io'], 'yes'],
        // Nothing beyond: no deleting what it reconciles, no Secrets or Leases elsewhere, no pods.
        [['delete', `websites.${GROUP}`, '-n', 'default'], 'no'],
        [['get', 'secrets', '-n', 'default'], 'no'],
        [['update', 'leases.coordination.k8s.io', '-n', 'default'], 'no'],
        [['create', 'pods', '-n', 'default'], 'no'],
        [['delete', 'validatingwebhookconfigurations.admissionregistration.k8s.io'], 'no'],
      ];
      const answers = await Promise.all(asked.map(async ([args]) => canI(args)));
      expect(asked.map(([args], i) => `${args.join(' ')}: ${answers[i]}`)).toEqual(asked.map(([args, want]) => `${args.join(' ')}: ${want}`));

      // One rule taken away (writing ConfigMaps): a new Website gets no ConfigMap and no status.
      const role = await client.resource(BUILTIN_RESOURCES.clusterRoles).get(NAME);
      const rules = role.rules ?? [];
      const without = rules.filter((r) => !(r.resources ?? []).includes('configmaps'));
      expect(without.length).toBe(rules.length - 1);
      await client
        .resource(BUILTIN_RESOURCES.clusterRoles)
        .update({ ...role, rules: [...without, { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] });
      await eventually(async () => expect(await canI(['create', 'configmaps', '-n', 'default'])).toBe('no'), 30_000, 500);
      await websites().create({ metadata: { name: 'denied' }, spec: { message: 'Nobody sees this' } });
      // The leader says why it fails; by then the ConfigMap would have been written.
      const leader = (await leaderPod())!;
      await eventually(
        async () => {
          const logs = (await kubectl(['logs', '-n', NAMESPACE, leader], env())).stdout;
          expect(logs).toMatch(/reconcile of default\/denied .*failed/);
          expect(logs).toMatch(/forbidden/i);
        },
        60_000,
        1_000,
      );
      await expect(client.configMaps.get('denied', { namespace: 'default' })).rejects.toThrow();
      expect((await websites().get('denied')).status).toBeUndefined();

      // The rule back, the same Website is reconciled: the missing rule was the cause.
      await client.resource(BUILTIN_RESOURCES.clusterRoles).update({ ...(await client.resource(BUILTIN_RESOURCES.clusterRoles).get(NAME)), rules });
      await websites().patch('denied', { spec: { message: 'Seen now' } }, 'merge'); // a change is reconciled at once, whatever the retry backoff
      await eventually(
        async () => expect((await client.configMaps.get('denied', { namespace: 'default' })).data).toEqual({ message: 'Seen now' }),
        60_000,
        500,
      );
    },
    4 * MINUTE,
  );
});
