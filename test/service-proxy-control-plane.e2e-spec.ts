// `npm start` runs the service proxy as system:kube-proxy: the whole launcher runs inside a network
// namespace of this test's own, so the proxy programs that namespace's nftables, not the host's.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { ROOT } from './support/apiserver-process';
import { ensureDebianPackages } from '@svc/cri';
import { netnsPrefix, netnsUnavailable } from '../bench/support/netns-network';

const unavailable = netnsUnavailable() ?? ensureDebianPackages([{ name: 'nftables', provides: '/usr/sbin/nft' }]);
if (unavailable) console.log(`npm start service proxy test skipped: ${unavailable}`);
const describeNetns = unavailable ? describe.skip : describe;

const nft = (netns: string, ...args: string[]) => spawnSync('ip', ['netns', 'exec', netns, 'nft', ...args], { encoding: 'utf8' });

describeNetns('npm start and the service proxy', () => {
  const netns = `${netnsPrefix()}-cp`;
  const dir = mkdtempSync(join(tmpdir(), 'svcpx-control-plane-'));
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(() => {
    spawnSync('ip', ['netns', 'add', netns]);
    spawnSync('ip', ['netns', 'exec', netns, 'ip', 'link', 'set', 'lo', 'up']);
  });

  afterAll(() => {
    child?.kill('SIGKILL');
    spawnSync('ip', ['netns', 'del', netns]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts svc-proxy with its own identity, which syncs the kubernetes Service, and removes its rules on stop', async () => {
    child = spawn('ip', ['netns', 'exec', netns, process.execPath, join(ROOT, 'bin', 'svc-control-plane.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        SVC_DATA: join(dir, 'data'),
        SVC_CONTAINER_RUNTIME_ENDPOINT: `unix://${join(dir, 'none.sock')}`,
        // The ingress controller and the metrics server take fixed host ports, which other tests' clusters use.
        SVC_INGRESS: 'off',
        SVC_METRICS_SERVER: 'off',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    // Only an identity the bootstrap policy lets list Services and EndpointSlices gets this far.
    await eventually(async () => expect(output).toMatch(/^Rules synced$/m), 90_000, 250);
    expect(output).toContain('Using the nftables mode for node');
    await eventually(async () => expect(nft(netns, 'list', 'table', 'ip', 'svc-proxy').stdout).toContain('default/kubernetes/tcp/https'), 10_000, 100);
    expect(output).not.toMatch(/forbidden/i);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(nft(netns, 'list', 'tables').stdout).not.toContain('svc-proxy');
  }, 150_000);
});
