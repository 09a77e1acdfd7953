import { Session } from 'node:inspector';
import { encodePprof, type ProfileFrame, type ProfileSample } from './pprof-encoding';

/** The longest CPU profile one request may ask for. */
export const MAX_CPU_PROFILE_SECONDS = 300;
const DEFAULT_CPU_PROFILE_SECONDS = 30;
const CPU_SAMPLING_INTERVAL_US = 1_000;
const HEAP_SAMPLING_INTERVAL_BYTES = 512 * 1024;

export interface ProfileAnswer {
  status: number;
  contentType: string;
  body: Buffer | string;
  /** Why the request was refused, for a Status body. */
  reason?: 'BadRequest' | 'NotFound' | 'Conflict';
}

interface CpuNode {
  id: number;
  callFrame: ProfileFrame;
  hitCount?: number;
  children?: number[];
}

interface HeapNode {
  id: number;
  callFrame: ProfileFrame;
  selfSize: number;
  children: HeapNode[];
}

const INDEX = `/debug/pprof/

Profiles of this Node.js process, in pprof's format (go tool pprof, Pyroscope):
  profile   CPU profile; ?seconds=N (default ${DEFAULT_CPU_PROFILE_SECONDS}, at most ${MAX_CPU_PROFILE_SECONDS})
  heap      sampled live heap (allocations since the process started, still reachable)
  cmdline   the command line, arguments separated by NUL bytes
`;

/**
 * Kubernetes components' `/debug/pprof/` (`--profiling`, on by default) for a Node.js process: a CPU
 * profile over the seconds asked and a sampled heap profile, taken with V8's own profilers through
 * the inspector and written in pprof's format so the usual tools read them. Heap sampling starts with
 * the profiler, as Go's runtime samples allocations from the start.
 */
export class ProcessProfiler {
  private readonly session = new Session();
  private cpuBusy = false;

  constructor() {
    this.session.connect();
    this.session.post('HeapProfiler.startSampling', { samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES });
  }

  /** Answers a path under `/debug/pprof`. */
  async answer(path: string, query: URLSearchParams): Promise<ProfileAnswer> {
    const name = path.replace(/^\/debug\/pprof\/?/, '');
    switch (name) {
      case '':
        return { status: 200, contentType: 'text/plain; charset=utf-8', body: INDEX };
      case 'cmdline':
        return { status: 200, contentType: 'text/plain; charset=utf-8', body: process.argv.join('\0') };
      case 'profile':
        return this.cpu(query.get('seconds'));
      case 'heap':
      case 'allocs':
        return { status: 200, contentType: 'application/octet-stream', body: await this.heap() };
      default:
        return { status: 404, contentType: 'text/plain; charset=utf-8', body: `Unknown profile: ${name}\n`, reason: 'NotFound' };
    }
  }

  close(): void {
    this.session.disconnect();
  }

  private async cpu(secondsText: string | null): Promise<ProfileAnswer> {
    const seconds = secondsText === null || secondsText === '' ? DEFAULT_CPU_PROFILE_SECONDS : Number(secondsText);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_CPU_PROFILE_SECONDS) {
      return {
        status: 400,
        contentType: 'text/plain; charset=utf-8',
        body: `seconds must be a whole number from 1 to ${MAX_CPU_PROFILE_SECONDS}`,
        reason: 'BadRequest',
      };
    }
    if (this.cpuBusy) return { status: 409, contentType: 'text/plain; charset=utf-8', body: 'a CPU profile is already being taken', reason: 'Conflict' };
    this.cpuBusy = true;
    try {
      await this.post('Profiler.enable');
      await this.post('Profiler.setSamplingInterval', { interval: CPU_SAMPLING_INTERVAL_US });
      await this.post('Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const { profile } = (await this.post('Profiler.stop')) as { profile: { nodes: CpuNode[]; startTime: number; endTime: number } };
      await this.post('Profiler.disable');
      return { status: 200, contentType: 'application/octet-stream', body: cpuPprof(profile) };
    } finally {
      this.cpuBusy = false;
    }
  }

  private async heap(): Promise<Buffer> {
    const { profile } = (await this.post('HeapProfiler.getSamplingProfile')) as { profile: { head: HeapNode; samples: Array<{ nodeId: number }> } };
    const counts = new Map<number, number>();
    for (const s of profile.samples) counts.set(s.nodeId, (counts.get(s.nodeId) ?? 0) + 1);
    const samples: ProfileSample[] = [];
    // Iterative: a deep recursion in the profiled program makes a deep tree.
    const pending: Array<{ node: HeapNode; stack: ProfileFrame[] }> = [{ node: profile.head, stack: [] }];
    while (pending.length > 0) {
      const { node, stack } = pending.pop()!;
      const here = node.callFrame.functionName === '(root)' ? stack : [node.callFrame, ...stack];
      if (node.selfSize > 0) samples.push({ stack: here, values: [counts.get(node.id) ?? 0, node.selfSize] });
      for (const child of node.children) pending.push({ node: child, stack: here });
    }
    const now = Date.now();
    return encodePprof({
      sampleTypes: [
        { type: 'inuse_objects', unit: 'count' },
        { type: 'inuse_space', unit: 'bytes' },
      ],
      periodType: { type: 'space', unit: 'bytes' },
      period: HEAP_SAMPLING_INTERVAL_BYTES,
      startMs: now,
      durationMs: 0,
      samples,
    });
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => this.session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  }
}

/** V8's CPU profile as pprof samples: each node's hits, with its stack up to the root; idle time left out. */
function cpuPprof(profile: { nodes: CpuNode[]; startTime: number; endTime: number }): Buffer {
  const parent = new Map<number, CpuNode>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node);
  }
  const periodNs = CPU_SAMPLING_INTERVAL_US * 1000;
  const samples: ProfileSample[] = [];
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0 || node.callFrame.functionName === '(idle)') continue;
    const stack: ProfileFrame[] = [];
    for (let at: CpuNode | undefined = node; at !== undefined && at.callFrame.functionName !== '(root)'; at = parent.get(at.id)) stack.push(at.callFrame);
    samples.push({ stack, values: [hits, hits * periodNs] });
  }
  return encodePprof({
    sampleTypes: [
      { type: 'samples', unit: 'count' },
      { type: 'cpu', unit: 'nanoseconds' },
    ],
    periodType: { type: 'cpu', unit: 'nanoseconds' },
    period: periodNs,
    // V8's times are of a monotonic clock; pprof's start is wall-clock time.
    startMs: Date.now() - (profile.endTime - profile.startTime) / 1000,
    durationMs: (profile.endTime - profile.startTime) / 1000,
    samples,
  });
}
