import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * What an informer child tells the parent, one JSON line each on stdout: `synced` once the initial
 * list is cached (the parent then starts its updates), `done` once every update has been seen.
 */
export interface SyncedMessage {
  type: 'synced';
  syncMs: number;
  heapBytes: number;
}

export interface DoneMessage {
  type: 'done';
  updateEvents: number;
  /** Wall-clock ms (performance.timeOrigin-based, sub-ms) of the last update event, comparable across processes. */
  lastUpdateAt: number;
  /** CPU ms (user + system, every thread of the child) from the synced message to the last update event. */
  cpuMs: number;
}

export type ChildMessage = SyncedMessage | DoneMessage;

/**
 * The arguments every child takes: connection file, namespace, objects to expect, updates to expect;
 * then, for this product's informer, the client's content type.
 */
export interface ChildArgs {
  svcconfig: string;
  namespace: string;
  objects: number;
  updates: number;
  contentType?: string;
}

export function parseChildArgs(argv: readonly string[]): ChildArgs {
  const [svcconfig, namespace, objects, updates, contentType] = argv;
  if (!svcconfig || !namespace || !objects || !updates) throw new Error('usage: <svcconfig> <namespace> <objects> <updates> [<content type>]');
  return { svcconfig, namespace, objects: Number(objects), updates: Number(updates), contentType };
}

export function send(message: ChildMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/**
 * A forced full GC without `node --expose-gc`: the children are started by the shared child-process
 * helper, which passes no Node flags, so the flag is set at run time and `gc` taken from a new context.
 */
export function forcedGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

/** Heap in use after a forced GC. */
export function settledHeap(gc: () => void): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** Counts adds until `objects`, then updates until `updates`, reporting each milestone once. */
export class EventCounter {
  private adds = 0;
  private updates = 0;
  private resolveSynced: () => void = () => undefined;
  private resolveDone: () => void = () => undefined;
  readonly addsSeen = new Promise<void>((resolve) => (this.resolveSynced = resolve));
  readonly updatesSeen = new Promise<void>((resolve) => (this.resolveDone = resolve));
  lastUpdateAt = 0;
  private cpuAtSync: NodeJS.CpuUsage | undefined;
  private cpuAtLastUpdate: NodeJS.CpuUsage | undefined;

  constructor(private readonly args: ChildArgs) {}

  onAdd(): void {
    if (++this.adds === this.args.objects) this.resolveSynced();
  }

  onUpdate(): void {
    this.lastUpdateAt = wallClockMs();
    if (++this.updates === this.args.updates) {
      this.cpuAtLastUpdate = process.cpuUsage();
      this.resolveDone();
    }
  }

  /** Marks the start of the CPU count: call right before sending `synced` (the parent then pauses the child). */
  markSynced(): void {
    this.cpuAtSync = process.cpuUsage();
  }

  done(): DoneMessage {
    const start = this.cpuAtSync ?? { user: 0, system: 0 };
    const end = this.cpuAtLastUpdate ?? process.cpuUsage();
    const cpuMs = (end.user - start.user + end.system - start.system) / 1000;
    return { type: 'done', updateEvents: this.updates, lastUpdateAt: this.lastUpdateAt, cpuMs };
  }
}

/** Wall-clock time with sub-millisecond resolution, comparable between the parent and a child. */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}
