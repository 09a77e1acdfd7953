// An operator's admission webhooks with two replicas, as a Deployment runs them behind a Service:
// every replica serves them, the leader alone installs the configurations and no replica removes
// them when it stops, and the API server tries another endpoint when one refuses the connection.
// Two operator processes against an API server process; the Service's endpoints are written by the
// test, as the endpoints controller would write them from the replicas' pods.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Endpoints } from '@svc/api';
import { BUILTIN_RESOURCES, Client, loadClientConfig } from '@svc/client';
import { isForbidden } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, ROOT, type ApiServerProcess } from './support/apiserver-process';
import { OPERATOR_NAME, WEBHOOK_SERVICE, widgetType } from './support/replicated-webhook-operator';

jest.setTimeout(120_000);

interface Replica {
  identity: string;
  webhookPort: number;
  child: ChildProcess;
  exited: Promise<void>;
  stderr(): string;
}

let apiserver: ApiServerProcess;
let client: Client;
const replicas: Replica[] = [];

async function startReplica(identity: string): Promise<Replica> {
  // tsx as a loader inside the one node process, so that a SIGKILL reaches the operator itself.
  const program = join(__dirname, 'support', 'replicated-webhook-operator.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', program, apiserver.kubeconfig, identity], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ webhookPort: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${identity} did not start in time: ${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { webhookPort: number });
      }
    });
    void exited.then(() => reject(new Error(`${identity} exited: ${stderr}`)));
  });
  const replica = { identity, webhookPort: started.webhookPort, child, exited, stderr: () => stderr };
  replicas.push(replica);
  return replica;
}

/** The Service's endpoints: one subset per live replica (each listens on its own loopback port). */
async function publishEndpoints(live: readonly Replica[]): Promise<void> {
  const endpoints = client.resource(BUILTIN_RESOURCES.endpoints).inNamespace(WEBHOOK_SERVICE.namespace);
  const body: Endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: WEBHOOK_SERVICE.name, namespace: WEBHOOK_SERVICE.namespace },
    subsets: live.map((r) => ({ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: r.webhookPort }] })),
  };
  await endpoints.apply(body, { fieldManager: 'webhook-replicas-test', force: true });
}

async function leader(): Promise<string | undefined> {
  const lease = await client
    .resource(BUILTIN_RESOURCES.leases)
    .inNamespace('default')
    .get(OPERATOR_NAME)
    .catch(() => undefined);
  return lease?.spec?.holderIdentity ?? undefined;
}

const widgets = () => client.resource(widgetType.resource).inNamespace('default');
let serial = 0;

/** Admission in force: an oversized widget is denied by the validating webhook, a good one defaulted. */
async function expectAdmissionInForce(): Promise<string | undefined> {
  serial += 1;
  const denied = await widgets()
    .create({ apiVersion: 'replicas.demo.svc.io/v1', kind: 'Widget', metadata: { name: `big-${serial}` }, spec: { size: 20 } })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(isForbidden(denied)).toBe(true);
  expect((denied as Error).message).toContain('size 20 is over 10');
  const made = await widgets().create({ apiVersion: 'replicas.demo.svc.io/v1', kind: 'Widget', metadata: { name: `small-${serial}` }, spec: { size: 5 } });
  expect(made.spec.color).toMatch(/^painted by /);
  return made.spec.color;
}

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  await client
    .resource(BUILTIN_RESOURCES.services)
    .inNamespace(WEBHOOK_SERVICE.namespace)
    .create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: WEBHOOK_SERVICE.name, namespace: WEBHOOK_SERVICE.namespace },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 'https' }] },
    });
});

afterAll(async () => {
  for (const r of replicas) r.child.kill('SIGKILL');
  await Promise.all(replicas.map((r) => r.exited));
  client?.close();
  await apiserver?.stop();
});

describe('admission webhooks served by two replicas', () => {
  it('stay in force while the standby stops and restarts and after a replica is killed with -9', async () => {
    const [a, b] = await Promise.all([startReplica('replica-a'), startReplica('replica-b')]);
    await publishEndpoints([a, b]);

    // Watch the configuration from the start: no replica may ever remove it.
    const configs = client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations);
    const watch = await configs.watch({ fieldSelector: `metadata.name=${OPERATOR_NAME}-validating` });
    const configEvents: string[] = [];
    const following = (async () => {
      for await (const event of watch) if (event.type !== 'BOOKMARK') configEvents.push(event.type);
    })();

    await eventually(async () => expect(await leader()).toMatch(/^replica-[ab]$/), 20_000);
    const config = await eventually(() => configs.get(`${OPERATOR_NAME}-validating`), 20_000);
    expect(config.webhooks?.[0].clientConfig).toMatchObject({
      service: { namespace: WEBHOOK_SERVICE.namespace, name: WEBHOOK_SERVICE.name, port: 443 },
    });
    await eventually(() => expectAdmissionInForce(), 20_000);

    // Both replicas answer reviews: over enough calls each one paints some widget.
    const painters = new Set<string | undefined>();
    for (let i = 0; i < 16 && painters.size < 2; i++) painters.add(await expectAdmissionInForce());
    expect([...painters].sort()).toEqual(['painted by replica-a', 'painted by replica-b']);

    // The standby stops gracefully, its endpoint still listed (as before its pod's readiness is seen):
    // the configurations stay, and calls refused by it go to the leader.
    const leaderName = await leader();
    const [leading, standby] = leaderName === a.identity ? [a, b] : [b, a];
    standby.child.kill('SIGTERM');
    await standby.exited;
    for (let i = 0; i < 6; i++) expect(await expectAdmissionInForce()).toBe(`painted by ${leading.identity}`);

    // It comes back on another port and serves again.
    const restarted = await startReplica(`${standby.identity}-restarted`);
    await publishEndpoints([leading, restarted]);
    await expectAdmissionInForce();

    // The leader is killed with -9: its endpoint refuses, the restarted replica answers at once,
    // and then takes the lease over.
    leading.child.kill('SIGKILL');
    await leading.exited;
    for (let i = 0; i < 6; i++) expect(await expectAdmissionInForce()).toBe(`painted by ${restarted.identity}`);
    await eventually(async () => expect(await leader()).toBe(restarted.identity), 20_000);
    await expectAdmissionInForce();

    watch.stop();
    await following;
    expect(configEvents.filter((type) => type === 'DELETED')).toEqual([]);
    expect(await configs.get(`${OPERATOR_NAME}-validating`)).toBeDefined();
  });
});
