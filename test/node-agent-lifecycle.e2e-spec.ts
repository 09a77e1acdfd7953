import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent lifecycle tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

function pod(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec };
}

function busybox(name: string, command: string, extra: Record<string, unknown> = {}) {
  return { name, image: 'busybox:1.36', command: ['sh', '-c', command], ...extra };
}

describeWithRuntime('node agent: restarts, probes, init containers, volumes, environment, resources, termination', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();
  const status = async (name: string) => (await cluster.getPod(name)).status;
  const exec = async (name: string, command: string) => (await kubectl(['exec', name, '--', 'sh', '-c', command], env())).stdout;

  beforeAll(async () => {
    cluster = await startNodeCluster({
      agent: { config: { systemReserved: { cpu: '100m', memory: '100Mi' }, svcReserved: { cpu: '200m', memory: '156Mi' } } },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('reports allocatable as capacity less systemReserved and svcReserved', async () => {
    const node = JSON.parse((await kubectl(['get', 'node', cluster.agent.nodeName, '-o', 'json'], env())).stdout);
    const cpus = Number(node.status.capacity.cpu);
    expect(node.status.allocatable.cpu).toBe(`${cpus * 1000 - 300}m`);
    const capacityKi = Number(/^(\d+)Ki$/.exec(node.status.capacity.memory)![1]);
    expect(node.status.allocatable.memory).toBe(`${capacityKi - 256 * 1024}Ki`);
  });

  it('restarts a container that exits 1 with growing backoff and shows CrashLoopBackOff', async () => {
    await cluster.apply(pod('crasher', { containers: [busybox('crash', 'echo run at $(date +%s); exit 1')] }));
    await eventually(async () => expect((await status('crasher')).containerStatuses[0].restartCount).toBeGreaterThanOrEqual(2), 40_000, 250);
    const s = await status('crasher');
    const container = s.containerStatuses[0];
    expect(s.phase).toBe('Running');
    expect(container.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    await eventually(async () => expect((await status('crasher')).containerStatuses[0].state.waiting?.reason).toBe('CrashLoopBackOff'), 15_000, 250);
    expect((await status('crasher')).containerStatuses[0].state.waiting.message).toMatch(/^back-off (10|20|40)s restarting failed container=crash/);
    // The first restart is at once, the second after 10 s, the next after 20 s: the backoff grows.
    await eventually(
      async () => expect((await status('crasher')).containerStatuses[0].state.waiting?.message).toMatch(/^back-off 20s restarting failed container=crash/),
      25_000,
      250,
    );
    const table = (await kubectl(['get', 'pod', 'crasher'], env())).stdout;
    expect(table).toMatch(/crasher\s+0\/1\s+(CrashLoopBackOff|Error)\s+\d+/);
    const previous = (await kubectl(['logs', 'crasher', '--previous'], env())).stdout;
    expect(previous).toMatch(/^run at \d+\n$/);
  }, 60_000);

  it('restarts a container whose liveness probe fails, and readiness follows its probe', async () => {
    await cluster.apply(
      pod('alive', {
        containers: [
          busybox('main', 'touch /tmp/healthy /tmp/ready; sleep 3; rm /tmp/healthy; sleep 3600', {
            // sh as PID 1 ignores SIGTERM: the probe's own grace period keeps the restart short.
            livenessProbe: { exec: { command: ['test', '-f', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2, terminationGracePeriodSeconds: 2 },
            readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
          }),
        ],
      }),
    );
    await eventually(async () => expect((await status('alive')).containerStatuses[0].ready).toBe(true), 20_000, 250);
    await eventually(async () => expect((await status('alive')).containerStatuses[0].restartCount).toBe(1), 30_000, 250);
    const events = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.name=alive'], env())).stdout;
    expect(events).toMatch(/Unhealthy.*Liveness probe failed/);
    expect(events).toMatch(/Killing.*failed liveness probe, will be restarted/);
  }, 60_000);

  it('runs httpGet, tcpSocket and startup probes', async () => {
    await cluster.apply(
      pod('probed', {
        containers: [
          busybox('web', 'mkdir -p /www && echo ok > /www/healthz && sleep 2 && exec httpd -f -p 8080 -h /www', {
            ports: [{ name: 'http', containerPort: 8080 }],
            startupProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1, failureThreshold: 30 },
            readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1 },
            livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 2 },
          }),
        ],
      }),
    );
    await eventually(
      async () => {
        const s = await status('probed');
        expect(s.containerStatuses[0]).toMatchObject({ started: true, ready: true, restartCount: 0 });
        expect(s.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
      },
      30_000,
      250,
    );
    // Not ready while the readiness endpoint fails; not restarted either (liveness looks at the same path, so it is removed last).
    await exec('probed', 'mv /www/healthz /www/gone');
    await eventually(async () => expect((await status('probed')).containerStatuses[0].ready).toBe(false), 15_000, 250);
    await exec('probed', 'mv /www/gone /www/healthz');
    await eventually(async () => expect((await status('probed')).containerStatuses[0].ready).toBe(true), 15_000, 250);
  }, 60_000);

  it('runs init containers in order before the containers, sharing an emptyDir', async () => {
    await cluster.apply(
      pod('initialized', {
        volumes: [{ name: 'work', emptyDir: {} }],
        initContainers: [
          busybox('first', 'echo one > /work/log; sleep 2', { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
          busybox('second', 'echo two >> /work/log', { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
        ],
        containers: [busybox('main', 'cat /work/log; sleep 3600', { volumeMounts: [{ name: 'work', mountPath: '/work' }] })],
      }),
    );
    await eventually(async () => expect((await kubectl(['get', 'pod', 'initialized'], env())).stdout).toMatch(/Init:0\/2/), 15_000, 100);
    await eventually(async () => expect((await status('initialized')).phase).toBe('Running'), 30_000, 250);
    const s = await status('initialized');
    expect(s.initContainerStatuses.map((c: any) => [c.name, c.state.terminated?.exitCode, c.state.terminated?.reason])).toEqual([
      ['first', 0, 'Completed'],
      ['second', 0, 'Completed'],
    ]);
    expect(s.conditions.find((c: { type: string }) => c.type === 'Initialized').status).toBe('True');
    await eventually(async () => expect((await kubectl(['logs', 'initialized'], env())).stdout).toBe('one\ntwo\n'), 10_000, 200);
  }, 60_000);

  it('fills the environment from values, ConfigMaps, Secrets, the pod fields and resources', async () => {
    await kubectl(['create', 'configmap', 'settings', '--from-literal=color=blue', '--from-literal=size=large'], env());
    await kubectl(['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret'], env());
    await cluster.apply(
      pod(
        'environ',
        {
          containers: [
            busybox('main', 'env | sort; sleep 3600', {
              resources: { limits: { memory: '64Mi', cpu: '250m' } },
              envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }],
              env: [
                { name: 'PLAIN', value: 'value' },
                { name: 'EXPANDED', value: '$(PLAIN)-and-$(CFG_color)' },
                { name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'settings', key: 'color' } } },
                { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
                { name: 'MISSING', valueFrom: { secretKeyRef: { name: 'absent', key: 'x', optional: true } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'TEAM', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
                { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'MEMORY_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
                { name: 'CPU_MILLI', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
              ],
            }),
          ],
        },
        { team: 'blue-team' },
      ),
    );
    await eventually(async () => expect((await status('environ')).phase).toBe('Running'), 30_000, 250);
    const ip = (await status('environ')).podIP;
    const vars = Object.fromEntries(
      (await exec('environ', 'env'))
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(vars).toMatchObject({
      PLAIN: 'value',
      EXPANDED: 'value-and-blue',
      CFG_color: 'blue',
      CFG_size: 'large',
      COLOR: 'blue',
      PASSWORD: 's3cret',
      POD_NAME: 'environ',
      POD_IP: ip,
      TEAM: 'blue-team',
      NODE: cluster.agent.nodeName,
      MEMORY_MI: '64',
      CPU_MILLI: '250',
    });
    expect(vars.MISSING).toBeUndefined();
    // A missing ConfigMap keeps the container from starting, with the reason.
    await cluster.apply(
      pod('unconfigured', {
        containers: [busybox('main', 'sleep 3600', { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }] })],
      }),
    );
    await eventually(
      async () => expect((await status('unconfigured')).containerStatuses[0].state.waiting.reason).toBe('CreateContainerConfigError'),
      20_000,
      250,
    );
  }, 60_000);

  it('mounts configMap, secret, downwardAPI, projected, hostPath and memory emptyDir volumes; configMap files follow changes', async () => {
    await kubectl(['create', 'configmap', 'files', '--from-literal=greeting=hello'], env());
    await kubectl(['create', 'secret', 'generic', 'keys', '--from-literal=token=abc'], env());
    const hostDir = join(cluster.agent.dir, 'host-volume');
    await import('node:fs/promises').then((fs) => fs.mkdir(hostDir, { recursive: true }));
    await writeFile(join(hostDir, 'from-host'), 'host file\n');
    await cluster.apply(
      pod(
        'volumes',
        {
          volumes: [
            { name: 'config', configMap: { name: 'files' } },
            { name: 'secret', secret: { secretName: 'keys', defaultMode: 0o400 } },
            { name: 'downward', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
            {
              name: 'projected',
              projected: { sources: [{ configMap: { name: 'files', items: [{ key: 'greeting', path: 'nested/greeting' }] } }, { secret: { name: 'keys' } }] },
            },
            { name: 'host', hostPath: { path: hostDir, type: 'Directory' } },
            { name: 'memory', emptyDir: { medium: 'Memory' } },
          ],
          containers: [
            busybox('main', 'sleep 3600', {
              volumeMounts: [
                { name: 'config', mountPath: '/etc/config' },
                { name: 'secret', mountPath: '/etc/secret', readOnly: true },
                { name: 'downward', mountPath: '/etc/podinfo' },
                { name: 'projected', mountPath: '/etc/projected' },
                { name: 'host', mountPath: '/host' },
                { name: 'memory', mountPath: '/scratch' },
              ],
            }),
          ],
        },
        { app: 'volumes' },
      ),
    );
    await eventually(async () => expect((await status('volumes')).phase).toBe('Running'), 30_000, 250);
    expect(await exec('volumes', 'cat /etc/config/greeting /etc/secret/token /etc/podinfo/labels; echo')).toBe('helloabcapp="volumes"\n');
    expect(
      await exec('volumes', 'cat /etc/projected/nested/greeting /etc/projected/token; echo; cat /host/from-host; stat -c %a /etc/secret/..data/token'),
    ).toBe('helloabc\nhost file\n400\n');
    expect(await exec('volumes', "grep ' /scratch ' /proc/mounts | cut -d' ' -f3")).toBe('tmpfs\n');
    await exec('volumes', 'echo written in the pod > /host/from-pod');
    expect(await readFile(join(hostDir, 'from-pod'), 'utf8')).toBe('written in the pod\n');
    await kubectl(['patch', 'configmap', 'files', '--type=merge', '-p', '{"data":{"greeting":"changed"}}'], env());
    await eventually(async () => expect(await exec('volumes', 'cat /etc/config/greeting')).toBe('changed'), 20_000, 250);
  }, 60_000);

  it('gives containers their requests and limits as cgroup settings and the pod its QoS class', async () => {
    // 700m and 0.7 are one amount: the pod is Guaranteed from its creation on, in status and in its cgroup.
    const exact = { requests: { cpu: '700m', memory: '32Mi' }, limits: { cpu: '0.7', memory: '32Mi' } };
    await cluster.apply(
      pod('limited', { containers: [busybox('main', 'sleep 3600', { resources: { limits: { memory: '48Mi', cpu: '500m' } } })] }),
      pod('burstable', { containers: [busybox('main', 'sleep 3600', { resources: { requests: { memory: '16Mi' } } })] }),
      pod('exact', { containers: [busybox('main', 'sleep 3600', { resources: exact })] }),
    );
    expect((await status('exact')).qosClass).toBe('Guaranteed');
    await eventually(async () => expect((await status('limited')).phase).toBe('Running'), 30_000, 250);
    expect((await status('limited')).qosClass).toBe('Guaranteed');
    await eventually(async () => expect((await status('burstable')).qosClass).toBe('Burstable'), 30_000, 250);
    await eventually(async () => expect((await status('exact')).phase).toBe('Running'), 30_000, 250);
    expect((await status('exact')).qosClass).toBe('Guaranteed');
    // The pod's cgroup is the one of its class: below kubepods itself for Guaranteed, below kubepods/burstable otherwise.
    const cgroupOf = async (name: string) => (await exec(name, 'cat /proc/self/cgroup')).split('\n').find((line) => line.includes('kubepods')) ?? '';
    const uid = async (name: string): Promise<string> => (await cluster.getPod(name)).metadata.uid;
    // (A runtime that gives containers a cgroup namespace of their own, as on cgroup v2, hides the path.)
    const exactCgroup = await cgroupOf('exact');
    if (exactCgroup !== '') {
      expect(exactCgroup).toMatch(new RegExp(`/kubepods/pod${await uid('exact')}/`));
      expect(await cgroupOf('burstable')).toMatch(new RegExp(`/kubepods/burstable/pod${await uid('burstable')}/`));
    }
    expect(await exec('limited', 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max')).toBe(`${48 * 1024 * 1024}\n`);
    expect(await exec('limited', 'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cut -d" " -f1 /sys/fs/cgroup/cpu.max')).toBe('50000\n');
  }, 60_000);

  it('runs preStop and sends SIGTERM within the grace period on delete, then removes the pod, its sandbox and its cgroup', async () => {
    const hostDir = join(cluster.agent.dir, 'termination');
    await import('node:fs/promises').then((fs) => fs.mkdir(hostDir, { recursive: true }));
    await cluster.apply(
      pod('graceful', {
        terminationGracePeriodSeconds: 20,
        volumes: [{ name: 'out', hostPath: { path: hostDir } }],
        containers: [
          busybox(
            'main',
            "trap 'echo sigterm >> /out/log; sleep 1; echo exiting >> /out/log; exit 0' TERM; echo started >> /out/log; while true; do sleep 0.2; done",
            {
              volumeMounts: [{ name: 'out', mountPath: '/out' }],
              lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /out/log'] } } },
            },
          ),
        ],
      }),
    );
    await eventually(async () => expect((await status('graceful')).phase).toBe('Running'), 30_000, 250);
    const uid = (await cluster.getPod('graceful')).metadata.uid;
    // The pod's cgroup (BestEffort: below kubepods/besteffort), in the v1 memory hierarchy or the v2 tree.
    const podCgroup = ['/sys/fs/cgroup/memory', '/sys/fs/cgroup']
      .map((root) => join(root, 'kubepods/besteffort', `pod${uid}`))
      .find((path) => existsSync(path));
    expect(podCgroup).toBeDefined();
    const started = Date.now();
    await kubectl(['delete', 'pod', 'graceful', '--wait=true'], env(), 40_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await readFile(join(hostDir, 'log'), 'utf8')).toBe('started\nprestop\nsigterm\nexiting\n');
    expect(await cluster.containerd.cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).toEqual([]);
    await eventually(async () => expect(existsSync(podCgroup!)).toBe(false), 20_000, 250);
  }, 60_000);
});
