/**
 * Histories of operations on a set of keys through the API, as a fault test records them and the
 * checkers read them. Each operation has the time it was called and the time its answer came back
 * (Infinity when no answer came: a failure or a timeout, whose effect is unknown). Written values
 * are unique in a history (`<client>-<n>`), so a value names the one write that wrote it.
 */

export type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'fail'; reason: 'exists' | 'conflict' | 'notfound' } | { kind: 'unknown'; error: string };

export interface StoredItem {
  key: string;
  value: string;
  /** The object's resourceVersion. */
  rv: number;
}

export type Operation =
  | { type: 'get'; key: string; outcome: Outcome<StoredItem | null> }
  | { type: 'list'; outcome: Outcome<{ rv: number; items: StoredItem[] }> }
  | { type: 'create'; key: string; value: string; outcome: Outcome<{ rv: number }> }
  /** A compare-and-swap on resourceVersion: `expected` is the version the client read. */
  | { type: 'update'; key: string; value: string; expected: number; outcome: Outcome<{ rv: number }> }
  /**
   * The answer is the last state at the deletion revision when the API returns the object (as for
   * Pods); a Status (as for ConfigMaps, like Kubernetes) tells neither.
   */
  | { type: 'delete'; key: string; expected?: number; outcome: Outcome<{ rv?: number; value?: string }> };

export interface HistoryEntry {
  client: number;
  call: number;
  /** Infinity when the outcome is unknown. */
  return: number;
  op: Operation;
}

export interface WatchRecord {
  /** Which server, which watch. */
  name: string;
  /** The revision it watched from (changes after it are delivered). */
  from: number;
  /** The state at `from`, from the list it started after. */
  initial: StoredItem[];
  events: Array<{ type: 'ADDED' | 'MODIFIED' | 'DELETED'; key: string; value: string; rv: number }>;
  /** The list read after every write ended and the watch caught up with it. */
  final: { rv: number; items: StoredItem[] };
}

/** Records a history as concurrent clients run: `run` times an operation and notes its outcome. */
export class HistoryRecorder {
  readonly entries: HistoryEntry[] = [];
  private readonly origin = performance.now();

  now(): number {
    return performance.now() - this.origin;
  }

  /** Runs `body` as one operation of `client`; an exception is an unknown outcome. */
  async run<T>(client: number, describe: (outcome: Outcome<T>) => Operation, body: () => Promise<Outcome<T>>): Promise<HistoryEntry> {
    const call = this.now();
    let outcome: Outcome<T>;
    try {
      outcome = await body();
    } catch (error) {
      outcome = { kind: 'unknown', error: String((error as Error)?.message ?? error) };
    }
    const entry: HistoryEntry = { client, call, return: outcome.kind === 'unknown' ? Number.POSITIVE_INFINITY : this.now(), op: describe(outcome) };
    this.entries.push(entry);
    return entry;
  }
}
