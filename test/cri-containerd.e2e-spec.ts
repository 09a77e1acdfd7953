import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCriNotFound, type PodSandboxConfig } from '@svc/cri';
import { BUSYBOX_IMAGE, localRuntimeUnavailable, startContainerd, type ContainerdProcess } from '@svc/cri/testing';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`CRI tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

describeWithRuntime('CRI client against a containerd the test starts', () => {
  let containerd: ContainerdProcess;
  let logs: string;

  beforeAll(async () => {
    containerd = await startContainerd();
    logs = await mkdtemp(join(tmpdir(), 'svc-cri-logs-'));
    await containerd.cri.updateRuntimeConfig('10.251.7.0/24');
  }, 60_000);

  afterAll(async () => {
    await containerd?.stop();
    if (logs) await rm(logs, { recursive: true, force: true });
  }, 60_000);

  it('reports its version and that runtime and network are ready', async () => {
    expect(await containerd.cri.version()).toMatchObject({ runtimeName: 'containerd', runtimeApiVersion: 'v1' });
    const status = await containerd.cri.status();
    expect(status.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['RuntimeReady', true],
      ['NetworkReady', true],
    ]);
  });

  it('runs a sandbox with an address from the pod CIDR and a container whose output lands in its log', async () => {
    const sandboxConfig: PodSandboxConfig = {
      metadata: { name: 'one', uid: 'uid-one', namespace: 'default', attempt: 0 },
      hostname: 'one',
      logDirectory: join(logs, 'one'),
      labels: { 'svc.io/pod-uid': 'uid-one' },
    };
    const sandbox = await containerd.cri.runPodSandbox(sandboxConfig);
    const status = await containerd.cri.podSandboxStatus(sandbox);
    expect(status.state).toBe('SANDBOX_READY');
    expect(status.network?.ip).toMatch(/^10\.251\.7\.\d+$/);
    expect(await containerd.cri.listPodSandbox({ labelSelector: { 'svc.io/pod-uid': 'uid-one' } })).toHaveLength(1);

    const id = await containerd.cri.createContainer(
      sandbox,
      {
        metadata: { name: 'main', attempt: 0 },
        image: { image: BUSYBOX_IMAGE },
        command: ['sh', '-c', 'echo "hello $GREETING"; hostname; exec sleep 600'],
        envs: [{ key: 'GREETING', value: Buffer.from('world') }],
        logPath: 'main/0.log',
      },
      sandboxConfig,
    );
    await containerd.cri.startContainer(id);
    const deadline = Date.now() + 10_000;
    let log = '';
    // Both lines: the first alone may be in the log before the second is written.
    const complete = (text: string) => /^\S+ stdout F hello world$/m.test(text) && /^\S+ stdout F one$/m.test(text);
    while (!complete(log) && Date.now() < deadline) {
      log = await readFile(join(logs, 'one', 'main', '0.log'), 'utf8').catch(() => '');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(log).toMatch(/^\S+ stdout F hello world$/m);
    expect(log).toMatch(/^\S+ stdout F one$/m);

    const exec = await containerd.cri.execSync(id, ['sh', '-c', 'echo out; echo err >&2; exit 3'], 10);
    expect([Buffer.from(exec.stdout).toString(), Buffer.from(exec.stderr).toString(), exec.exitCode]).toEqual(['out\n', 'err\n', 3]);
    expect(await containerd.cri.exec({ containerId: id, cmd: ['true'], tty: false, stdin: false, stdout: true, stderr: true })).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/exec\//,
    );

    await containerd.cri.stopContainer(id, 1);
    expect((await containerd.cri.containerStatus(id)).state).toBe('CONTAINER_EXITED');
    await containerd.cri.removeContainer(id);
    expect(isCriNotFound(await containerd.cri.containerStatus(id).catch((error: unknown) => error))).toBe(true);
    await containerd.cri.stopPodSandbox(sandbox);
    await containerd.cri.removePodSandbox(sandbox);
    expect(await containerd.cri.listPodSandbox()).toEqual([]);
  }, 60_000);

  it('knows the imported images and has none it was not given', async () => {
    expect((await containerd.cri.imageStatus(BUSYBOX_IMAGE))?.repoTags).toEqual(['docker.io/library/busybox:1.36']);
    expect(await containerd.cri.imageStatus('busybox:0.0-absent')).toBeUndefined();
  });
});
