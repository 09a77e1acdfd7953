import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStorage, type StoredObject } from '@svc/storage';
import { store3Figures } from './store3';

/**
 * Embedded storage backend figures, beside the raw engine measured in the same run:
 * - raw engine: better-sqlite3 inserts of the same JSON text with the same pragmas (WAL, synchronous=FULL,
 *   exclusive locking), one transaction per insert, as each store write is;
 * - store writes/s: sequential creates through the Storage contract (precondition read, log row, current
 *   row, one fsync'd commit, watch fan-out);
 * - reads/s: gets of random existing keys;
 * - write-to-watch latency: from calling create to a watcher of the prefix receiving the event;
 * - concurrent writes/s: creates with CONCURRENCY in flight, each awaited until durable (group
 *   commit lets the writes of one turn share a transaction and its fsync), and their CPU time;
 * - store3 on a three-member etcd cluster on loopback, beside bare etcd Puts of the same keys (its floor)
 *   and beside the embedded store (STORE3_BENCH_WRITES and friends size it; it is skipped, saying why,
 *   where etcd is not installed).
 */
const WRITES = Number(process.env.STORAGE_BENCH_WRITES ?? 3_000);
const READS = Number(process.env.STORAGE_BENCH_READS ?? 50_000);
const LATENCY_SAMPLES = Number(process.env.STORAGE_BENCH_LATENCY_SAMPLES ?? 2_000);
/** Writers in flight for the concurrent write rate (what an API server under load has). */
const CONCURRENCY = Number(process.env.STORAGE_BENCH_CONCURRENCY ?? 32);
const STORE3_WRITES = Number(process.env.STORE3_BENCH_WRITES ?? 1_000);
const STORE3_READS = Number(process.env.STORE3_BENCH_READS ?? 2_000);
const STORE3_LATENCY_SAMPLES = Number(process.env.STORE3_BENCH_LATENCY_SAMPLES ?? 300);

interface BenchObject extends StoredObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; labels: Record<string, string>; resourceVersion?: string };
  data: Record<string, string>;
}

/** A ConfigMap of about 1 KiB of JSON, half the size the HTTP interface quotes for a typical pod. */
function object(i: number): BenchObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench', uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, labels: { app: 'bench', tier: 'storage' } },
    data: { payload: 'x'.repeat(800), index: String(i) },
  };
}

const key = (i: number): string => `/registry/configmaps/bench/cm-${i}`;

const BLOCK = 50;

/**
 * Raw engine and store writes alternate in blocks, so that disk noise from anything else running on the
 * machine falls on both sides alike.
 */
async function writeRates(dir: string, store: EmbeddedStorage): Promise<{ raw: number; store: number }> {
  const db = new Database(join(dir, 'raw.sqlite'));
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE log (revision INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, value TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO log (key, value) VALUES (?, ?)');
  const values = Array.from({ length: WRITES }, (_, i) => JSON.stringify(object(i)));
  const inputs = Array.from({ length: WRITES }, (_, i) => object(i));
  let rawNs = 0n;
  let storeNs = 0n;
  try {
    for (let from = 0; from < WRITES; from += BLOCK) {
      const to = Math.min(from + BLOCK, WRITES);
      let started = process.hrtime.bigint();
      for (let i = from; i < to; i++) insert.run(key(i), values[i]);
      rawNs += process.hrtime.bigint() - started;
      started = process.hrtime.bigint();
      for (let i = from; i < to; i++) await store.create(key(i), inputs[i]);
      storeNs += process.hrtime.bigint() - started;
    }
  } finally {
    db.close();
  }
  return { raw: WRITES / (Number(rawNs) / 1e9), store: WRITES / (Number(storeNs) / 1e9) };
}

/** WRITES creates with CONCURRENCY in flight: writes/s, and CPU microseconds per write. */
async function concurrentWrites(store: EmbeddedStorage, offset: number): Promise<{ perSecond: number; cpuMicros: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const writer = async (): Promise<void> => {
    while (next < WRITES) {
      const i = offset + next++;
      await store.create(key(i), object(i));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, writer));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { perSecond: WRITES / seconds, cpuMicros: (used.user + used.system) / WRITES };
}

async function storeFigures(
  dir: string,
): Promise<{ raw: number; writes: number; reads: number; p50: number; p99: number; concurrent: { perSecond: number; cpuMicros: number } }> {
  const store = EmbeddedStorage.open({ dataDir: join(dir, 'store'), compactionIntervalMs: 0 });
  try {
    const rates = await writeRates(dir, store);

    const started = process.hrtime.bigint();
    for (let i = 0; i < READS; i++) await store.get(key((i * 7919) % WRITES));
    const reads = READS / (Number(process.hrtime.bigint() - started) / 1e9);

    const watcher = await store.watch<BenchObject>('/registry/configmaps/bench/');
    const events = watcher[Symbol.asyncIterator]();
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const received = events.next();
      const sent = process.hrtime.bigint();
      await store.create(key(WRITES + i), object(WRITES + i));
      await received;
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
    }
    watcher.stop();
    const concurrent = await concurrentWrites(store, WRITES + LATENCY_SAMPLES);
    latencies.sort((a, b) => a - b);
    const percentile = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    return { raw: rates.raw, writes: rates.store, reads, p50: percentile(50), p99: percentile(99), concurrent };
  } finally {
    await store.close();
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-storage-bench-'));
  try {
    const store = await storeFigures(dir);
    const raw = store.raw;
    const rows: Array<[string, string]> = [
      ['raw engine (better-sqlite3, WAL, synchronous=FULL) writes/s', raw.toFixed(0)],
      ['embedded store writes/s (create)', store.writes.toFixed(0)],
      ['embedded store / raw engine write ratio', (store.writes / raw).toFixed(2)],
      ['embedded store reads/s (get)', store.reads.toFixed(0)],
      ['write-to-watch latency p50 (ms)', store.p50.toFixed(3)],
      ['write-to-watch latency p99 (ms)', store.p99.toFixed(3)],
      [`embedded store writes/s (create, ${CONCURRENCY} in flight)`, store.concurrent.perSecond.toFixed(0)],
      [`embedded store CPU per write at ${CONCURRENCY} in flight (us)`, store.concurrent.cpuMicros.toFixed(0)],
      [`embedded store at ${CONCURRENCY} in flight / raw engine write ratio`, (store.concurrent.perSecond / raw).toFixed(2)],
    ];
    const etcd = await store3Figures({
      writes: STORE3_WRITES,
      reads: STORE3_READS,
      latencySamples: STORE3_LATENCY_SAMPLES,
      concurrency: CONCURRENCY,
      object,
      key,
      watchPrefix: '/registry/configmaps/bench/',
    });
    if (etcd !== undefined) {
      rows.push(
        ['etcd floor (bare Put, 3 members) writes/s', etcd.floorWrites.toFixed(0)],
        ['store3 writes/s (create)', etcd.writes.toFixed(0)],
        ['store3 / etcd floor write ratio', (etcd.writes / etcd.floorWrites).toFixed(2)],
        ['store3 / embedded store write ratio', (etcd.writes / store.writes).toFixed(2)],
        ['store3 reads/s (get, linearizable)', etcd.reads.toFixed(0)],
        ['store3 / embedded store read ratio', (etcd.reads / store.reads).toFixed(3)],
        ['store3 write-to-watch latency p50 (ms)', etcd.p50.toFixed(3)],
        ['store3 write-to-watch latency p99 (ms)', etcd.p99.toFixed(3)],
        [`etcd floor writes/s (bare Put, ${CONCURRENCY} in flight)`, etcd.floorConcurrent.toFixed(0)],
        [`store3 writes/s (create, ${CONCURRENCY} in flight)`, etcd.concurrent.toFixed(0)],
        [`store3 / etcd floor write ratio at ${CONCURRENCY} in flight`, (etcd.concurrent / etcd.floorConcurrent).toFixed(2)],
        [`store3 / embedded store write ratio at ${CONCURRENCY} in flight`, (etcd.concurrent / store.concurrent.perSecond).toFixed(2)],
      );
    }
    const width = Math.max(...rows.map(([label]) => label.length));
    console.log(`storage benchmark: ${WRITES} writes of ~1 KiB objects, ${READS} reads, ${LATENCY_SAMPLES} latency samples, data in ${dir}`);
    for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
