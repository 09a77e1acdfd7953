// The installed executables as a user runs them: help, version, flag errors and a healthy boot.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, startApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess } from './support/controller-manager-process';
import { startSchedulerProcess } from './support/scheduler-process';
import { eventually } from '@svc/runtime/testing';
import { kubectl } from './support/kubectl-run';

const root = join(__dirname, '..');
const bin = (name: string) => join(root, 'bin', `${name}.js`);

function run(name: string, args: string[]) {
  const result = spawnSync(process.execPath, [bin(name), ...args], { encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.each([
  [
    'svc-apiserver',
    [
      '--secure-port int',
      '(default 6443)',
      '--store-prefix string',
      '(default "/registry")',
      '--store-compaction-interval duration',
      '(default 5m0s)',
      '--authorization-mode strings',
      '--storage-backend string',
      '(default "embedded")',
      'Audit flags',
      '--audit-log-mode string',
    ],
  ],
  [
    'svc-controller-manager',
    [
      '--leader-elect-lease-duration duration',
      '(default 15s)',
      '--leader-elect-resource-namespace string',
      '(default "svc-system")',
      '--min-resync-period duration',
      '(default 12h0m0s)',
      '--svc-api-qps float',
      '(default 20)',
      '--controllers strings',
      '(default [*])',
      '--node-monitor-grace-period duration',
      '(default 40s)',
      '--terminated-pod-gc-threshold int32',
    ],
  ],
  [
    'svc-scheduler',
    [
      '--secure-port int',
      '(default 10259)',
      '--leader-elect-resource-name string',
      '(default "svc-scheduler")',
      '--svc-api-qps float',
      '(default 50)',
      '--scheduler-name string',
      '(default "default-scheduler")',
    ],
  ],
  ['svc-node-simulator', ['--nodes int', '(default 1)', '--node-lease-duration-seconds int', '(default 40)', '--register-with-taints strings']],
  [
    'svc-proxy',
    [
      '--proxy-mode string',
      '--healthz-bind-address string',
      '(default "0.0.0.0:10256")',
      '--metrics-bind-address string',
      '(default "127.0.0.1:10249")',
      '--iptables-min-sync-period duration',
      '(default 1s)',
      '--svc-api-qps float',
      '(default 5)',
    ],
  ],
  ['svc-dns', ['--cluster-domain string', '(default "cluster.local")', '--port int32', '(default 53)', '--resolv-conf string']],
  ['svc-metrics-server', ['--metric-resolution duration', '(default 15s)', '--kubelet-insecure-tls', '--requestheader-client-ca-file string']],
  ['svc-ingress', ['--http-port int32', '(default 80)', '--https-port int32', '(default 443)', '--controller-name string', '(default "svc.io/ingress")']],
])('%s', (name, expected) => {
  it('--help lists its flags under group headings with their defaults', () => {
    const { status, stdout } = run(name, ['--help']);
    expect(status).toBe(0);
    expect(stdout).toContain(`Usage:\n  ${name} [flags]`);
    for (const text of expected) expect(stdout).toContain(text);
    expect(stdout.split('\n').filter((line) => /^\S.* flags:$/.test(line)).length).toBeGreaterThan(3);
  });

  it('--version prints the version', () => {
    const { status, stdout } = run(name, ['--version']);
    expect(status).toBe(0);
    expect(stdout.trim()).toMatch(new RegExp(`^${name} v\\d+\\.\\d+\\.\\d+`));
  });

  it('an unknown flag exits 2 with one line naming it', () => {
    const { status, stdout, stderr } = run(name, ['--no-such-flag']);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual(['unknown flag: --no-such-flag']);
  });
});

describe('flag validation before anything starts', () => {
  it.each([
    ['svc-apiserver', ['--secure-port=0'], 'invalid argument "0" for "--secure-port" flag: cannot be 0'],
    ['svc-apiserver', ['--goaway-chance=0.5'], '"--goaway-chance"'],
    ['svc-apiserver', ['--logging-format=json'], '"--logging-format"'],
    ['svc-apiserver', ['--authorization-mode=Nope'], '"--authorization-mode"'],
    ['svc-apiserver', ['--storage-backend=mongodb'], '--store-servers'],
    ['svc-apiserver', ['--tls-sni-cert-key=a.crt,a.key'], '--tls-sni-cert-key is not supported by this process yet'],
    ['svc-apiserver', ['--egress-selector-config-file=egress.yaml'], '--egress-selector-config-file is not supported by this API server yet'],
    ['svc-apiserver', ['--storage-media-type=application/yaml'], 'objects are stored as application/json'],
    ['svc-apiserver', ['--enable-admission-plugins=NodeRestriction,AlwaysPullImages'], 'names AlwaysPullImages, which this API server does not implement'],
    ['svc-controller-manager', ['--leader-elect-renew-deadline=20s'], '"--leader-elect-renew-deadline"'],
    ['svc-controller-manager', ['--controllers=deployment,nosuch'], '"--controllers"'],
    ['svc-controller-manager', ['--attach-detach-reconcile-sync-period=500ms'], '"--attach-detach-reconcile-sync-period"'],
    ['svc-controller-manager', ['--pod-eviction-timeout=1m'], '--default-unreachable-toleration-seconds'],
    [
      'svc-controller-manager',
      ['--mirroring-concurrent-service-endpoint-syncs=2'],
      '--mirroring-concurrent-service-endpoint-syncs is not supported: this controller manager runs no endpointslice mirroring controller',
    ],
    ['svc-controller-manager', ['--cluster-signing-cert-file=ca.crt'], '--cluster-signing-key-file must be given with --cluster-signing-cert-file'],
    ['svc-scheduler', ['--tls-sni-cert-key=a.crt,a.key'], '--tls-sni-cert-key is not supported by this process yet'],
    ['svc-scheduler', ['--pod-initial-backoff-seconds=30'], '"--pod-max-backoff-seconds"'],
    ['svc-scheduler', ['--leader-elect-resource-lock=configmapsleases'], '"--leader-elect-resource-lock"'],
    ['svc-proxy', ['--proxy-mode=ipvs'], '--proxy-mode is not supported: only the nftables and iptables modes are implemented'],
    ['svc-proxy', ['--nodeport-addresses=primary,10.0.0.0/8'], '"--nodeport-addresses"'],
    ['svc-proxy', ['--detect-local-mode=BridgeInterface'], '--pod-bridge-interface'],
    ['svc-proxy', ['--config=kube-proxy.yaml'], '--config is not supported'],
    ['svc-dns', ['--cluster-domain=Cluster.Local.'], '"--cluster-domain"'],
    ['svc-dns', ['--port=70000'], '"--port"'],
    ['svc-metrics-server', ['--metric-resolution=5s'], 'metric-resolution should be a time duration at least 10s, but value 5s provided'],
    [
      'svc-metrics-server',
      ['--kubelet-insecure-tls', '--kubelet-certificate-authority=ca.crt'],
      'cannot use both --kubelet-certificate-authority and --kubelet-insecure-tls',
    ],
    ['svc-ingress', ['--controller-name=nginx'], '"--controller-name"'],
  ])('%s %s', (name, args, message) => {
    const { status, stderr } = run(name, args);
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
  });
});

describe('svc-controller-manager boot', () => {
  it('connects through --svcconfig, takes the lease and serves /healthz, /livez, /readyz and, when allowed, /metrics over HTTPS', async () => {
    const apiserver = await startApiServerProcess();
    try {
      const cm = await startControllerManagerProcess(apiserver, ['--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics']);
      try {
        for (const path of ['/healthz', '/livez', '/readyz']) {
          // The certificate is self-signed in memory, as Kubernetes' controller manager does without --cert-dir.
          expect(await cm.get(path)).toEqual({ status: 200, body: 'ok' });
        }
        expect((await cm.get('/readyz?verbose')).body).toContain('[+]informers ok');
        expect((await cm.get('/metrics')).body).toMatch(/controller_runtime_max_concurrent_reconciles\{controller="replicaset"\} 5/);
        const lease = await kubectl(
          ['get', 'lease', '-n', 'svc-system', 'svc-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}'],
          apiserver.kubectlEnv,
        );
        expect(lease.stdout).not.toBe('');
        // The line follows the start of every controller, which a loaded machine may not have reached yet.
        await eventually(() =>
          expect(cm.stdout()).toContain(
            'Controllers: replicaset, deployment, namespace, garbagecollector, endpoints, replicationcontroller, endpointslice, nodelifecycle, podgc, serviceaccount, root-ca-cert-publisher, disruption, job, ttl-after-finished, cronjob, statefulset, daemonset',
          ),
        );
      } finally {
        await cm.stop();
      }
    } finally {
      await apiserver.stop();
    }
  }, 90_000);

  it('forbids every path but --authorization-always-allow-paths without an authorizer, as Kubernetes does', async () => {
    const apiserver = await startApiServerProcess();
    try {
      const cm = await startControllerManagerProcess(apiserver);
      try {
        expect(await cm.get('/readyz?verbose')).toMatchObject({ status: 200 });
        const metrics = await cm.get('/metrics');
        expect(metrics.status).toBe(403);
        expect(JSON.parse(metrics.body)).toMatchObject({
          kind: 'Status',
          reason: 'Forbidden',
          code: 403,
          message: 'forbidden: User "system:anonymous" cannot get path "/metrics"',
        });
        expect((await cm.get('/healthz/ping')).status).toBe(403);
      } finally {
        await cm.stop();
      }
    } finally {
      await apiserver.stop();
    }
  }, 90_000);

  it('exits with a one-line error when it has no API server to talk to', () => {
    const { status, stderr } = run('svc-controller-manager', ['--secure-port=0']);
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('svc-scheduler boot', () => {
  it('takes the lease svc-scheduler in svc-system and serves its probes over HTTPS', async () => {
    const apiserver = await startApiServerProcess();
    try {
      const scheduler = await startSchedulerProcess(apiserver, ['--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics']);
      try {
        for (const path of ['/healthz', '/livez', '/readyz']) expect(await scheduler.get(path)).toEqual({ status: 200, body: 'ok' });
        expect((await scheduler.get('/metrics')).body).toContain('scheduler_pending_pods{queue="active"} 0');
        const lease = await kubectl(['get', 'lease', '-n', 'svc-system', 'svc-scheduler', '-o', 'jsonpath={.spec.holderIdentity}'], apiserver.kubectlEnv);
        expect(lease.stdout).not.toBe('');
        expect(scheduler.stdout()).toContain('Scheduling pods of schedulerName "default-scheduler"');
      } finally {
        await scheduler.stop();
      }
    } finally {
      await apiserver.stop();
    }
  });
});

describe('svc-apiserver on the embedded store', () => {
  it('refuses a second process on the same --data-dir with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const ports = [await freeLoopbackPort(), await freeLoopbackPort()];
    const args = (port: number) => [
      bin('svc-apiserver'),
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--data-dir=${join(dir, 'store')}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--svcconfig-out=${join(dir, `svcconfig-${port}`)}`,
    ];
    const first = spawn(process.execPath, args(ports[0]), { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('API server did not start')), 30_000);
        first.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('Client connection file written')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const second = spawnSync(process.execPath, args(ports[1]), { encoding: 'utf8', timeout: 30_000 });
      expect(second.status).not.toBe(0);
      expect(second.stderr).toContain('is in use by another process');
    } finally {
      first.kill('SIGTERM');
      await new Promise((resolve) => first.on('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
