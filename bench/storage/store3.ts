import { createStorage, type Storage, type StoredObject } from '@svc/storage';
import { ETCD, EtcdClient, etcdUnavailable, startEtcdCluster } from '@svc/storage/testing';

/**
 * store3 figures on a three-member etcd cluster on loopback started for the run, beside the store's
 * floor: bare etcd Puts of the same keys and values through the same gRPC client (no precondition, no
 * transaction, no encoding), so the ratio is what the store's own work costs.
 */
export interface Store3Figures {
  floorWrites: number;
  writes: number;
  reads: number;
  p50: number;
  p99: number;
  floorConcurrent: number;
  concurrent: number;
}

export interface Store3BenchOptions {
  writes: number;
  reads: number;
  latencySamples: number;
  concurrency: number;
  object: (i: number) => StoredObject;
  key: (i: number) => string;
  watchPrefix: string;
}

const BLOCK = 50;

/** Undefined (with the reason printed) when no etcd can be started here. */
export async function store3Figures(options: Store3BenchOptions): Promise<Store3Figures | undefined> {
  const unavailable = etcdUnavailable();
  if (unavailable !== undefined) {
    console.log(`store3 figures skipped: ${unavailable}`);
    return undefined;
  }
  const cluster = await startEtcdCluster({ members: 3 });
  const client = new EtcdClient({ endpoints: cluster.endpoints });
  let store: Storage | undefined;
  try {
    store = await createStorage({ backend: 'store3', servers: cluster.endpoints, compactionIntervalMs: 0 });
    const { key, object, writes } = options;
    const encoder = new TextEncoder();
    const put = (i: number) =>
      client.call(ETCD.put, { key: encoder.encode(`/floor${key(i)}`), value: encoder.encode(JSON.stringify(object(i))) }, { write: true });

    // Sequential: floor and store alternate in blocks, so the machine's noise falls on both alike.
    let floorNs = 0n;
    let storeNs = 0n;
    for (let from = 0; from < writes; from += BLOCK) {
      const to = Math.min(from + BLOCK, writes);
      let started = process.hrtime.bigint();
      for (let i = from; i < to; i++) await put(i);
      floorNs += process.hrtime.bigint() - started;
      started = process.hrtime.bigint();
      for (let i = from; i < to; i++) await store.create(key(i), object(i));
      storeNs += process.hrtime.bigint() - started;
    }

    const started = process.hrtime.bigint();
    for (let i = 0; i < options.reads; i++) await store.get(key((i * 7919) % writes));
    const reads = options.reads / (Number(process.hrtime.bigint() - started) / 1e9);

    const watcher = await store.watch(options.watchPrefix);
    const events = watcher[Symbol.asyncIterator]();
    const latencies: number[] = [];
    for (let i = 0; i < options.latencySamples; i++) {
      const received = events.next();
      const sent = process.hrtime.bigint();
      await store.create(key(writes + i), object(writes + i));
      await received;
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
    }
    watcher.stop();
    latencies.sort((a, b) => a - b);
    const percentile = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];

    const inFlight = async (offset: number, write: (i: number) => Promise<unknown>): Promise<number> => {
      let next = 0;
      const begun = process.hrtime.bigint();
      const writer = async (): Promise<void> => {
        while (next < writes) await write(offset + next++);
      };
      await Promise.all(Array.from({ length: options.concurrency }, writer));
      return writes / (Number(process.hrtime.bigint() - begun) / 1e9);
    };
    const offset = writes + options.latencySamples;
    const floorConcurrent = await inFlight(offset, put);
    const opened = store;
    const concurrent = await inFlight(offset, (i) => opened.create(key(i), object(i)));
    return {
      floorWrites: writes / (Number(floorNs) / 1e9),
      writes: writes / (Number(storeNs) / 1e9),
      reads,
      p50: percentile(50),
      p99: percentile(99),
      floorConcurrent,
      concurrent,
    };
  } finally {
    await store?.close();
    client.close();
    await cluster.stop();
  }
}
