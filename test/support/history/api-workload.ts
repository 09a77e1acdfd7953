import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigMap } from '@svc/api';
import type { Client } from '@svc/client';
import { isStatusError } from '@svc/machinery';
import { HistoryRecorder, type HistoryEntry, type Outcome, type StoredItem, type WatchRecord } from './history';
import { checkLinearizable, type CheckResult } from './linearizability';
import { checkWatch } from './watch-checker';

export interface WorkloadOptions {
  /** One client per worker (each may name several servers to fail over between). */
  clients: readonly Client[];
  namespace: string;
  /** Keys the workers write and read (ConfigMap names). */
  keys: number;
  /** Each worker stops after this many operations or at the deadline, whichever comes first. */
  maxOperationsPerClient: number;
  durationMs: number;
  /** Put before every written value, so that values stay unique across the workloads of one store. */
  valuePrefix?: string;
  /** Called with each acknowledged write's entry (for "writes resume within ..."). */
  onAcknowledgedWrite?: (entry: HistoryEntry) => void;
  recorder?: HistoryRecorder;
}

const itemOf = (cm: ConfigMap): StoredItem => ({ key: cm.metadata?.name ?? '', value: cm.data?.v ?? '', rv: Number(cm.metadata?.resourceVersion) });

/** A definite refusal by the API, or undefined when the outcome is unknown (5xx, timeouts, connection loss). */
function refusal(error: unknown): 'exists' | 'conflict' | 'notfound' | undefined {
  if (!isStatusError(error)) return undefined;
  if (error.code === 404) return 'notfound';
  if (error.code === 409) return error.status.reason === 'AlreadyExists' ? 'exists' : 'conflict';
  return undefined;
}

function failed<T>(error: unknown): Outcome<T> {
  const reason = refusal(error);
  if (reason !== undefined) return { kind: 'fail', reason };
  throw error;
}

/**
 * Runs workers that get, list, create, update (compare-and-swap on the resourceVersion they last
 * read) and delete ConfigMaps of a few keys through the API, concurrently, and records every call
 * and answer. Values are unique: `c<worker>-<n>` in `data.v`.
 */
export async function runWorkload(options: WorkloadOptions): Promise<HistoryRecorder> {
  const recorder = options.recorder ?? new HistoryRecorder();
  const deadline = Date.now() + options.durationMs;
  await Promise.all(
    options.clients.map(async (client, c) => {
      const cms = client.configMaps.inNamespace(options.namespace);
      const known = new Map<string, number>();
      let random = (c + 1) * 7919;
      const next = (n: number): number => {
        random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
        return random % n;
      };
      for (let n = 0; n < options.maxOperationsPerClient && Date.now() < deadline; n++) {
        const key = `k${next(options.keys)}`;
        const value = `${options.valuePrefix ?? ''}c${c}-${n}`;
        const choice = next(100);
        let entry: HistoryEntry;
        if (choice < 25) {
          entry = await recorder.run<StoredItem | null>(
            c,
            (o) => ({ type: 'get', key, outcome: o }),
            async (): Promise<Outcome<StoredItem | null>> => {
              try {
                const got = itemOf(await cms.get(key));
                known.set(key, got.rv);
                return { kind: 'ok', value: got };
              } catch (error) {
                if (refusal(error) === 'notfound') {
                  known.delete(key);
                  return { kind: 'ok', value: null };
                }
                throw error;
              }
            },
          );
        } else if (choice < 35) {
          entry = await recorder.run<{ rv: number; items: StoredItem[] }>(
            c,
            (o) => ({ type: 'list', outcome: o }),
            async () => {
              const listed = await cms.list();
              return { kind: 'ok', value: { rv: Number(listed.metadata.resourceVersion), items: listed.items.map(itemOf) } };
            },
          );
        } else if (choice < 55 || !known.has(key)) {
          entry = await recorder.run<{ rv: number }>(
            c,
            (o) => ({ type: 'create', key, value, outcome: o }),
            async () => {
              try {
                const created = await cms.create({ metadata: { name: key }, data: { v: value } });
                known.set(key, Number(created.metadata?.resourceVersion));
                return { kind: 'ok', value: { rv: Number(created.metadata?.resourceVersion) } };
              } catch (error) {
                return failed(error);
              }
            },
          );
        } else if (choice < 90) {
          const expected = known.get(key) ?? 0;
          entry = await recorder.run<{ rv: number }>(
            c,
            (o) => ({ type: 'update', key, value, expected, outcome: o }),
            async () => {
              try {
                const updated = await cms.update({
                  metadata: { name: key, namespace: options.namespace, resourceVersion: String(expected) },
                  data: { v: value },
                });
                known.set(key, Number(updated.metadata?.resourceVersion));
                return { kind: 'ok', value: { rv: Number(updated.metadata?.resourceVersion) } };
              } catch (error) {
                return failed(error);
              }
            },
          );
        } else {
          const expected = known.get(key);
          entry = await recorder.run<{ rv?: number; value?: string }>(
            c,
            (o) => ({ type: 'delete', key, expected, outcome: o }),
            async () => {
              try {
                const deleted = (await cms.delete(key, expected === undefined ? {} : { preconditions: { resourceVersion: String(expected) } })) as ConfigMap;
                known.delete(key);
                // A Status (Kubernetes answers a ConfigMap's delete so) names neither revision nor value.
                if (deleted.metadata?.resourceVersion === undefined || deleted.data?.v === undefined) return { kind: 'ok', value: {} };
                return { kind: 'ok', value: { rv: Number(deleted.metadata.resourceVersion), value: deleted.data.v } };
              } catch (error) {
                return failed(error);
              }
            },
          );
        }
        if (entry.op.type !== 'get' && entry.op.type !== 'list' && entry.op.outcome.kind === 'ok') options.onAcknowledgedWrite?.(entry);
      }
    }),
  );
  return recorder;
}

/**
 * A watch of the namespace's ConfigMaps through one client, from a revision, that resumes from the
 * last revision it saw whenever its stream ends (as a reflector does), recording every event.
 */
export class RecordedWatch {
  readonly events: WatchRecord['events'] = [];
  private stopped = false;
  private readonly done: Promise<void>;
  private last: number;
  /** Why a resumption was refused (a 410 would mean a gap it cannot close). */
  readonly problems: string[] = [];

  constructor(
    readonly name: string,
    client: Client,
    namespace: string,
    readonly from: number,
    readonly initial: StoredItem[],
  ) {
    this.last = from;
    this.done = this.run(client, namespace);
  }

  get lastRevision(): number {
    return this.last;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.stop();
    await this.done;
  }

  private current: { stop(): void } | undefined;

  private async run(client: Client, namespace: string): Promise<void> {
    const cms = client.configMaps.inNamespace(namespace);
    while (!this.stopped) {
      try {
        const watch = await cms.watch({ resourceVersion: String(this.last), allowWatchBookmarks: true, timeoutSeconds: 60 });
        this.current = watch;
        for await (const event of watch) {
          const rv = Number(event.object.metadata?.resourceVersion);
          if (event.type === 'BOOKMARK') {
            this.last = Math.max(this.last, rv);
            continue;
          }
          if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
          this.events.push({ type: event.type, key: event.object.metadata?.name ?? '', value: event.object.data?.v ?? '', rv });
          this.last = Math.max(this.last, rv);
        }
      } catch (error) {
        if (this.stopped) return;
        if (isStatusError(error) && error.code === 410) {
          this.problems.push(`${this.name}: resuming from ${this.last} was refused: ${error.message}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  record(final: WatchRecord['final']): WatchRecord {
    return { name: this.name, from: this.from, initial: this.initial, events: this.events, final };
  }
}

export interface HistoryVerdict {
  linearizability: CheckResult;
  watchProblems: string[];
  /** Where the history was kept when a check failed. */
  artifact?: string;
}

/**
 * Checks a history and the watches beside it; a history that fails a check is written to
 * `reports/histories/<name>-<time>.json` for a look afterwards.
 */
export async function verifyHistory(
  name: string,
  history: readonly HistoryEntry[],
  initial: { rv: number; items: StoredItem[] },
  watches: readonly WatchRecord[],
  timeoutMs = 60_000,
): Promise<HistoryVerdict> {
  const linearizability = checkLinearizable(history, { initial: initial.items, initialRevision: initial.rv, timeoutMs });
  const watchProblems = watches.flatMap((w) => checkWatch(w, history));
  const verdict: HistoryVerdict = { linearizability, watchProblems };
  if (linearizability.outcome !== 'linearizable' || watchProblems.length > 0) {
    const dir = join(__dirname, '..', '..', '..', 'reports', 'histories');
    await mkdir(dir, { recursive: true });
    verdict.artifact = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const serializable = history.map((e) => ({ ...e, return: e.return === Number.POSITIVE_INFINITY ? null : e.return }));
    await writeFile(verdict.artifact, JSON.stringify({ name, initial, history: serializable, watches, verdict: { linearizability, watchProblems } }, null, 1));
  }
  return verdict;
}
