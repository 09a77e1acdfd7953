// `npm start` stops whole, whatever ends it: a SIGTERM to npm (a process manager, a terminal closing),
// a SIGKILL of the launcher, its parent going. The controller manager and the scheduler stop before the
// API server, so they release their leases.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';

/** The live processes under `pid` (children, their children, ...), read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command may hold spaces and parentheses: the fields after its last ')' are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  // A zombie has exited; only its parent has not read its status yet.
  return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

interface Started {
  child: ChildProcess;
  output: () => string;
  dir: string;
}

async function start(command: string, args: string[]): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-control-plane-lifecycle-'));
  const port = await freeLoopbackPort();
  let output = '';
  const child = spawn(command, args, {
    cwd: ROOT,
    // No container runtime: the node agent is not started, the rest is.
    env: {
      ...process.env,
      SVC_DATA: join(dir, 'data'),
      // The ingress controller and the metrics server take fixed host ports, which other tests' clusters use.
      SVC_INGRESS: 'off',
      SVC_METRICS_SERVER: 'off',
      SVC_PORT: String(port),
      SVC_CONTAINER_RUNTIME_ENDPOINT: `unix://${join(dir, 'none.sock')}`,
      // Nor the service proxy: the host's nftables are left alone.
      SVC_SERVICE_PROXY: 'off',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  // Running, and both leader-elected components lead (so that each has a lease to release).
  await eventually(async () => expect((output.match(/ acquired lease /g) ?? []).length).toBeGreaterThanOrEqual(2), 90_000, 250);
  return { child, output: () => output, dir };
}

const NODE_PROCESSES = /svc-(control-plane|apiserver|controller-manager|scheduler)\.js/;

function controlPlaneProcesses(root: number): number[] {
  return descendants(root).filter((pid) => {
    try {
      return NODE_PROCESSES.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

describe('npm start: stopping', () => {
  let started: Started | undefined;
  let pids: number[] = [];

  afterEach(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (started) rmSync(started.dir, { recursive: true, force: true });
    started = undefined;
    pids = [];
  });

  it('a SIGTERM to npm stops the launcher and every component, the API server last, with the leases released', async () => {
    started = await start('npm', ['start', '--silent']);
    pids = controlPlaneProcesses(started.child.pid!);
    // The launcher, the API server, the controller manager and the scheduler (and the shell npm ran
    // the launcher in, where it does not exec it).
    expect(pids.length).toBeGreaterThanOrEqual(4);
    started.child.kill('SIGTERM');
    await eventually(async () => expect(pids.filter(alive)).toEqual([]), 90_000, 250);
    const output = started.output();
    expect(output).toMatch(/released lease \S+\/svc-controller-manager/);
    expect(output).toMatch(/released lease \S+\/svc-scheduler/);
    expect(output).not.toContain('release failed');
  }, 180_000);

  it('the components stop when the launcher is killed with SIGKILL', async () => {
    started = await start(process.execPath, [join(ROOT, 'bin', 'svc-control-plane.js')]);
    pids = controlPlaneProcesses(started.child.pid!);
    expect(pids).toHaveLength(3);
    started.child.kill('SIGKILL');
    await eventually(async () => expect(pids.filter(alive)).toEqual([]), 90_000, 250);
  }, 180_000);
});
