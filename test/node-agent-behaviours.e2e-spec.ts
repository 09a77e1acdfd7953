import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent behaviour tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function pod(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec };
}

function busybox(name: string, command: string, extra: Record<string, unknown> = {}) {
  return { name, image: 'busybox:1.36', command: ['sh', '-c', command], ...extra };
}

function httpGet(host: string, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describeWithRuntime('node agent: registerNode, status reports, restart policies, hooks, followed secrets, logs since, hostPort', () => {
  let cluster: NodeCluster;
  const nodeName = `node-${Math.random().toString(36).slice(2, 8)}`;
  let nodeAbsentWhileWaiting = false;
  /** Requests the agent sent to the test's hook server, as `METHOD path header`. */
  const hookRequests: string[] = [];
  let hookServer: Server;
  let hookPort = 0;
  const env = () => cluster.env();
  const status = async (name: string) => (await cluster.getPod(name)).status;

  beforeAll(async () => {
    hookServer = createServer((req, res) => {
      hookRequests.push(`${req.method} ${req.url} ${String(req.headers['x-hook'] ?? '')}`);
      res.writeHead(req.url === '/missing' ? 404 : 200).end('ok');
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    hookPort = (hookServer.address() as AddressInfo).port;
    cluster = await startNodeCluster({
      agent: { nodeName, config: { registerNode: false, nodeStatusReportFrequency: '4s', nodeStatusUpdateFrequency: '1s' } },
      // An administrator creates the Node once the agent says it waits for it (however long its start takes).
      whileAgentStarts: async (apiserver, agentLog) => {
        await eventually(() => expect(agentLog()).toContain(`waiting for Node ${nodeName} to be created (registerNode is false)`), 60_000, 100);
        nodeAbsentWhileWaiting = (await runKubectl(['get', 'node', nodeName], apiserver.kubectlEnv)).code !== 0;
        const file = `${apiserver.dir}/node.json`;
        await import('node:fs/promises').then((fs) => fs.writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } })));
        await kubectl(['create', '-f', file], apiserver.kubectlEnv);
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    hookServer?.closeAllConnections();
    await new Promise((resolve) => hookServer?.close(resolve));
  }, 60_000);

  it('with registerNode: false it creates no Node, waits for one, then labels it and reports its status', async () => {
    expect(nodeAbsentWhileWaiting).toBe(true);
    expect(cluster.agent.stderr()).toContain(`waiting for Node ${nodeName} to be created (registerNode is false)`);
    expect(cluster.agent.stderr()).not.toContain(`registered node ${nodeName}`);
    await eventually(
      async () => {
        const node = JSON.parse((await kubectl(['get', 'node', nodeName, '-o', 'json'], env())).stdout);
        expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux' });
        expect(node.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
      },
      20_000,
      250,
    );
  });

  it('posts an unchanged status again at nodeStatusReportFrequency, not at every nodeStatusUpdateFrequency', async () => {
    const heartbeats = new Set<string>();
    await eventually(
      async () => {
        const node = JSON.parse((await kubectl(['get', 'node', nodeName, '-o', 'json'], env())).stdout);
        heartbeats.add(node.status.conditions.find((c: { type: string }) => c.type === 'Ready').lastHeartbeatTime);
        expect(heartbeats.size).toBeGreaterThanOrEqual(3);
      },
      40_000,
      300,
    );
    // Status is computed every second, but as nothing changed it is sent only every 4 s.
    const times = [...heartbeats].map((t) => Date.parse(t)).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(3_000);
  }, 60_000);

  it('restartPolicy Never leaves a failed container stopped (Failed); OnFailure restarts a failure and ends with a success (Succeeded)', async () => {
    await cluster.apply(
      pod('never', { restartPolicy: 'Never', containers: [busybox('main', 'exit 1')] }),
      pod('once', { restartPolicy: 'OnFailure', containers: [busybox('main', 'exit 0')] }),
      // Fails the first time, succeeds the second: a marker file in an emptyDir survives the restart.
      pod('retry', {
        restartPolicy: 'OnFailure',
        volumes: [{ name: 'state', emptyDir: {} }],
        containers: [
          busybox('main', 'if [ -e /state/tried ]; then exit 0; fi; touch /state/tried; exit 2', { volumeMounts: [{ name: 'state', mountPath: '/state' }] }),
        ],
      }),
    );
    await eventually(async () => expect((await status('never')).phase).toBe('Failed'), 40_000, 250);
    const never = await status('never');
    expect(never.containerStatuses[0]).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } });
    await eventually(async () => expect((await status('once')).phase).toBe('Succeeded'), 40_000, 250);
    expect((await status('once')).containerStatuses[0]).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    await eventually(async () => expect((await status('retry')).phase).toBe('Succeeded'), 40_000, 250);
    const retry = (await status('retry')).containerStatuses[0];
    expect(retry).toMatchObject({ restartCount: 1, state: { terminated: { exitCode: 0 } }, lastState: { terminated: { exitCode: 2 } } });
    // Nothing more happens to finished pods.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await status('never')).containerStatuses[0].restartCount).toBe(0);
    expect((await status('retry')).containerStatuses[0].restartCount).toBe(1);
  }, 90_000);

  it('runs httpGet postStart and preStop hooks; a failed postStart hook kills the container', async () => {
    const hook = (path: string) => ({ httpGet: { host: '127.0.0.1', port: hookPort, path, httpHeaders: [{ name: 'X-Hook', value: path.slice(1) }] } });
    await cluster.apply(
      pod('hooked', {
        terminationGracePeriodSeconds: 10,
        containers: [busybox('main', 'exec sleep 3600', { lifecycle: { postStart: hook('/post-start'), preStop: hook('/pre-stop') } })],
      }),
    );
    await eventually(async () => expect((await status('hooked')).phase).toBe('Running'), 30_000, 250);
    expect(hookRequests).toContain('GET /post-start post-start');
    expect(hookRequests).not.toContain('GET /pre-stop pre-stop');
    await kubectl(['delete', 'pod', 'hooked', '--wait=true'], env(), 40_000);
    expect(hookRequests).toContain('GET /pre-stop pre-stop');

    await cluster.apply(pod('bad-hook', { containers: [busybox('main', 'exec sleep 3600', { lifecycle: { postStart: hook('/missing') } })] }));
    await eventually(
      async () => {
        const events = (await kubectl(['get', 'events', '--field-selector=involvedObject.name=bad-hook', '-o', 'json'], env())).stdout;
        expect(JSON.parse(events).items.map((e: { reason: string }) => e.reason)).toContain('FailedPostStartHook');
        expect((await status('bad-hook')).containerStatuses[0].restartCount).toBeGreaterThanOrEqual(1);
      },
      40_000,
      500,
    );
  }, 90_000);

  it('secret files follow changes of the Secret', async () => {
    await kubectl(['create', 'secret', 'generic', 'rotating', '--from-literal=key=first'], env());
    await cluster.apply(
      pod('secret-reader', {
        volumes: [{ name: 's', secret: { secretName: 'rotating' } }],
        containers: [busybox('main', 'exec sleep 3600', { volumeMounts: [{ name: 's', mountPath: '/s' }] })],
      }),
    );
    await eventually(async () => expect((await status('secret-reader')).phase).toBe('Running'), 30_000, 250);
    const read = async () => (await kubectl(['exec', 'secret-reader', '--', 'cat', '/s/key'], env())).stdout;
    expect(await read()).toBe('first');
    await kubectl(['patch', 'secret', 'rotating', '--type=merge', '-p', JSON.stringify({ data: { key: Buffer.from('second').toString('base64') } })], env());
    await eventually(async () => expect(await read()).toBe('second'), 20_000, 250);
  }, 60_000);

  it('kubectl logs --since and --since-time show only the later lines', async () => {
    await cluster.runPod('chatty', ['sh', '-c', 'echo early; sleep 8; echo late; exec sleep 3600']);
    await eventually(async () => expect((await kubectl(['logs', 'chatty'], env())).stdout).toBe('early\nlate\n'), 40_000, 250);
    const stamped = (await kubectl(['logs', 'chatty', '--timestamps'], env())).stdout.trim().split('\n');
    const [early, late] = stamped.map((line) => Date.parse(line.split(' ')[0]));
    expect(late - early).toBeGreaterThanOrEqual(7_000);
    // Cut half way between the two lines: a margin of 4 s either side for kubectl's own start.
    const since = Math.round((Date.now() - (early + late) / 2) / 1000);
    expect((await kubectl(['logs', 'chatty', `--since=${since}s`], env())).stdout).toBe('late\n');
    expect((await kubectl(['logs', 'chatty', '--since=1h'], env())).stdout).toBe('early\nlate\n');
    const between = new Date(Math.ceil((early + 1) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect((await kubectl(['logs', 'chatty', `--since-time=${between}`], env())).stdout).toBe('late\n');
  }, 90_000);

  it('hostPort maps a port of the node to the container', async () => {
    const hostPort = 31000 + Math.floor(Math.random() * 2000);
    await cluster.apply(
      pod('host-port', {
        containers: [
          busybox('main', 'mkdir -p /www && echo through the host port > /www/index.html && exec httpd -f -p 8080 -h /www', {
            ports: [{ containerPort: 8080, hostPort }],
          }),
        ],
      }),
    );
    await eventually(async () => expect((await status('host-port')).phase).toBe('Running'), 30_000, 250);
    const gateway = (await status('host-port')).podIP.replace(/\.\d+$/, '.1');
    // The node's address (the bridge's, on this machine) at the host port reaches the pod.
    await eventually(async () => expect(await httpGet(gateway, hostPort)).toEqual({ status: 200, body: 'through the host port\n' }), 15_000, 500);
  }, 60_000);
});
