import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from '@svc/api';
import { ContainerConfigError } from '../objects/container-config-error';
import { containerConfig, terminationLogPath, type ContainerRuntimeInputs } from './container-config';

// A subPath is bind-mounted into the pod's directory, as root only can.
const asRoot = process.getuid?.() === 0 ? it : it.skip;

describe('the CRI container config', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'container-config-spec-'));
    mkdirSync(join(dir, 'volumes', 'data'), { recursive: true });
  });
  afterAll(() => {
    // The subPaths' bind mounts go first: nothing is removed through them.
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '');
    for (const point of mounts.filter((p) => p.startsWith(`${dir}/`)).reverse()) execFileSync('umount', ['-l', point]);
    rmSync(dir, { recursive: true, force: true });
  });

  const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({
    metadata: { name: 'web', namespace: 'shop', uid: 'u-1' },
    spec: { containers: [], terminationGracePeriodSeconds: 15, securityContext: { runAsUser: 1000, fsGroup: 2000 }, ...spec },
  });

  function inputs(extra: Partial<ContainerRuntimeInputs> = {}): ContainerRuntimeInputs {
    return {
      imageRef: 'sha256:abc',
      env: [
        ['GREETING', Buffer.from('hello')],
        ['NAME', Buffer.from('world')],
      ],
      volumes: new Map([['data', { path: join(dir, 'volumes', 'data'), readOnly: false }]]),
      podDir: join(dir, 'pod'),
      hostsFile: join(dir, 'pod', 'etc-hosts'),
      attempt: 2,
      type: 'regular',
      resources: { cfsQuota: true, memoryCapacityBytes: 8 * 1024 ** 3 },
      ...extra,
    };
  }

  it('expands $(VAR) in command and args, and carries identity, restart count, grace period and log path', async () => {
    const container: Container = {
      name: 'app',
      image: 'busybox:1.36',
      command: ['sh', '-c'],
      args: ['echo $(GREETING) $(NAME) $(MISSING) $$(GREETING)'],
      workingDir: '/w',
    };
    const config = await containerConfig(pod(), container, inputs());
    expect(config).toMatchObject({
      metadata: { name: 'app', attempt: 2 },
      image: { image: 'sha256:abc', userSpecifiedImage: 'busybox:1.36' },
      command: ['sh', '-c'],
      args: ['echo hello world $(MISSING) $(GREETING)'],
      workingDir: '/w',
      envs: [
        { key: 'GREETING', value: Buffer.from('hello') },
        { key: 'NAME', value: Buffer.from('world') },
      ],
      labels: { 'io.kubernetes.container.name': 'app', 'svc.io/container-type': 'regular', 'io.kubernetes.pod.uid': 'u-1' },
      annotations: { 'io.kubernetes.container.restartCount': '2', 'io.kubernetes.pod.terminationGracePeriod': '15' },
      logPath: 'app/2.log',
    });
    expect(config.linux?.securityContext).toMatchObject({ runAsUser: { value: 1000 }, supplementalGroups: [2000], namespaceOptions: { pid: 'CONTAINER' } });
  });

  asRoot('mounts volumes (a subPath inside its volume), the hosts file and a fresh termination log', async () => {
    const container: Container = {
      name: 'app',
      image: 'i',
      volumeMounts: [
        { name: 'data', mountPath: '/data', readOnly: true },
        { name: 'data', mountPath: '/cache', subPath: 'cache/app', mountPropagation: 'HostToContainer' },
      ],
    };
    const config = await containerConfig(pod(), container, inputs());
    const log = terminationLogPath(join(dir, 'pod'), 'app', 2);
    expect(config.mounts).toEqual([
      { containerPath: '/data', hostPath: join(dir, 'volumes', 'data'), readonly: true, propagation: 'PROPAGATION_PRIVATE' },
      {
        containerPath: '/cache',
        hostPath: join(dir, 'pod', 'volume-subpaths', 'data', 'app', '1'),
        readonly: false,
        propagation: 'PROPAGATION_HOST_TO_CONTAINER',
      },
      { containerPath: '/etc/hosts', hostPath: join(dir, 'pod', 'etc-hosts') },
      { containerPath: '/dev/termination-log', hostPath: log },
    ]);
    expect(existsSync(join(dir, 'volumes', 'data', 'cache/app'))).toBe(true);
    expect(statSync(log).mode & 0o777).toBe(0o666);
  });

  it('refuses a mount of a volume the pod lacks, or a subPath leaving its volume, as a config error', async () => {
    const missing: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'nope', mountPath: '/x' }] };
    await expect(containerConfig(pod(), missing, inputs())).rejects.toThrow(ContainerConfigError);
    await expect(containerConfig(pod(), missing, inputs())).rejects.toThrow('cannot find volume "nope" to mount into container "app"');
    const escaping: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPath: '../../etc' }] };
    await expect(containerConfig(pod(), escaping, inputs())).rejects.toThrow("unable to provision SubPath `../../etc`: must not contain '..'");
  });

  asRoot('expands subPathExpr from the environment; a link or expression leading out of the volume is a config error', async () => {
    symlinkSync('/etc', join(dir, 'volumes', 'data', 'escape'));
    const logged: string[] = [];
    const viaExpr: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPathExpr: 'per/$(NAME)' }] };
    const config = await containerConfig(pod(), viaExpr, inputs());
    expect(config.mounts?.[0]?.hostPath).toBe(join(dir, 'pod', 'volume-subpaths', 'data', 'app', '0'));
    expect(existsSync(join(dir, 'volumes', 'data', 'per', 'world'))).toBe(true);
    const link: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPath: 'escape' }] };
    await expect(containerConfig(pod(), link, inputs({ log: (m) => logged.push(m) }))).rejects.toThrow(
      new ContainerConfigError('failed to prepare subPath for volumeMount "data" of container "app"'),
    );
    expect(logged.join('\n')).toContain('not within volume path');
    const below: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPath: 'escape/created' }] };
    await expect(containerConfig(pod(), below, inputs())).rejects.toThrow('failed to create subPath directory for volumeMount "data" of container "app"');
    expect(existsSync('/etc/created')).toBe(false);
    const env: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPathExpr: '$(GREETING)/../../..' }] };
    await expect(containerConfig(pod(), env, inputs())).rejects.toThrow("must not contain '..'");
    const missing: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/x', subPathExpr: '$(NOT_SET)' }] };
    await expect(containerConfig(pod(), missing, inputs())).rejects.toThrow(new ContainerConfigError('missing value for NOT_SET'));
  });

  it('mounts a volume read only at its source read only in every container', async () => {
    const container: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'claim', mountPath: '/c' }] };
    const config = await containerConfig(pod(), container, inputs({ volumes: new Map([['claim', { path: join(dir, 'volumes', 'data'), readOnly: true }]]) }));
    expect(config.mounts?.[0]).toMatchObject({ containerPath: '/c', readonly: true });
  });

  asRoot('shares the process namespace of a pod asking for it, and leaves /etc/hosts to a container that mounts its own', async () => {
    const container: Container = { name: 'app', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/etc/hosts', subPath: 'hosts' }] };
    const config = await containerConfig(pod({ shareProcessNamespace: true }), container, inputs({ hostsFile: undefined }));
    expect(config.linux?.securityContext?.namespaceOptions?.pid).toBe('POD');
    expect(config.mounts?.filter((m) => m.containerPath === '/etc/hosts')).toHaveLength(1);
  });

  it("puts an ephemeral container targeting another in that container's process namespace, unless the pod shares one already", async () => {
    const debug: Container = { name: 'debugger', image: 'i' };
    const targeted = await containerConfig(pod(), debug, inputs({ type: 'ephemeral', targetId: 'c0ffee' }));
    expect(targeted.linux?.securityContext?.namespaceOptions).toMatchObject({ pid: 'TARGET', targetId: 'c0ffee', network: 'POD', ipc: 'POD' });
    const shared = await containerConfig(pod({ shareProcessNamespace: true }), debug, inputs({ type: 'ephemeral', targetId: 'c0ffee' }));
    expect(shared.linux?.securityContext?.namespaceOptions?.pid).toBe('POD');
    expect(shared.linux?.securityContext?.namespaceOptions?.targetId).toBeUndefined();
    const host = await containerConfig(pod({ hostPID: true }), debug, inputs({ type: 'ephemeral', targetId: 'c0ffee' }));
    expect(host.linux?.securityContext?.namespaceOptions?.pid).toBe('NODE');
    expect(targeted.labels?.['svc.io/container-type']).toBe('ephemeral');
  });
});
