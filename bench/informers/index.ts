import { mkdtempSync, rmSync } from 'node:fs';
import type { Agent } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNodeChild, type Child } from '../apiserver/child-processes';
import { keepAliveAgent, sendExpecting, type HttpsTarget } from '../apiserver/https-client';
import { startApiServer, type RunningServer } from '../apiserver/server-processes';
import { wallClockMs, type ChildMessage, type DoneMessage, type SyncedMessage } from './child-protocol';
import { atConcurrency } from '../apiserver/at-concurrency';
import { positiveFromEnv } from '../support/env-number';

/**
 * Informer figures beside @kubernetes/client-node's informer (1.x, the line that runs on Node 20),
 * against one API server child process on loopback in the same run: time to cache OBJECTS ConfigMaps
 * of about 500 B, heap per cached object after a forced GC, and how fast UPDATES update events are
 * processed while the parent writes them at fixed concurrency. Ours runs twice, its client speaking
 * Kubernetes' protobuf and JSON. Another side, a bare reader that only parses each event's JSON into a
 * Map, is the floor under any informer that reads JSON. Each side runs in its own child process so
 * that its heap holds nothing else; every child is stopped on the way out.
 */
const OBJECTS = positiveFromEnv('INFORMERS_BENCH_OBJECTS', 10_000);
const UPDATES = positiveFromEnv('INFORMERS_BENCH_UPDATES', 2_000);
const CONCURRENCY = positiveFromEnv('INFORMERS_BENCH_CONCURRENCY', 32);
const PHASE_TIMEOUT_MS = 120_000;
const NAMESPACE = 'bench-informers';
const COLLECTION = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const MERGE_PATCH = 'application/merge-patch+json';

const objectName = (index: number): string => `cm-${String(index).padStart(5, '0')}`;

/** A ConfigMap of about 500 B of JSON as the server stores it (metadata included). */
function configMap(index: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: objectName(index), namespace: NAMESPACE, labels: { app: 'bench', tier: 'informers' } },
    data: { payload: 'x'.repeat(16), index: String(index) },
  });
}

async function seed(agent: Agent, target: HttpsTarget): Promise<{ ms: number; bytes: number }> {
  const namespace = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  await sendExpecting([200, 201, 409, 404], agent, target, 'POST', '/api/v1/namespaces', namespace);
  let bytes = 0;
  const ms = await atConcurrency(OBJECTS, CONCURRENCY, async (index) => {
    const reply = await sendExpecting([201], agent, target, 'POST', COLLECTION, configMap(index));
    if (index === 0) bytes = reply.body.length;
  });
  return { ms, bytes };
}

interface SideResult {
  side: string;
  synced: SyncedMessage;
  done: DoneMessage;
  writeMs: number;
  backlogMs: number;
}

/** The JSON lines of one child, each awaited by its type; the child's exit rejects what is still awaited. */
class ChildMessages {
  private readonly waiting = new Map<string, { resolve: (m: ChildMessage) => void; reject: (e: Error) => void }>();
  private readonly arrived = new Map<string, ChildMessage>();
  private child: Child | undefined;

  constructor(private readonly name: string) {}

  readonly onLine = (line: string): void => {
    if (!line.startsWith('{')) return;
    const message = JSON.parse(line) as ChildMessage;
    const waiter = this.waiting.get(message.type);
    if (waiter) waiter.resolve(message);
    else this.arrived.set(message.type, message);
  };

  attach(child: Child): void {
    this.child = child;
    void child.exited.then((how) => {
      for (const { reject } of this.waiting.values()) reject(new Error(`${this.name} exited (${how}) early:\n${child.output()}`));
    });
  }

  next(type: ChildMessage['type']): Promise<ChildMessage> {
    const early = this.arrived.get(type);
    if (early) return Promise.resolve(early);
    return new Promise<ChildMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no ${type} within ${PHASE_TIMEOUT_MS} ms:\n${this.child?.output() ?? ''}`)),
        PHASE_TIMEOUT_MS,
      );
      this.waiting.set(type, {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
  }
}

async function measureSide(
  side: string,
  script: string,
  server: RunningServer,
  svcconfig: string,
  agent: Agent,
  round: number,
  extraArgs: string[] = [],
): Promise<SideResult> {
  const messages = new ChildMessages(`${side} informer`);
  const child = startNodeChild(join(__dirname, script), [svcconfig, NAMESPACE, String(OBJECTS), String(UPDATES), ...extraArgs], messages.onLine);
  messages.attach(child);
  try {
    const synced = (await messages.next('synced')) as SyncedMessage;
    // The child is paused while the updates are written, so that it then works through a backlog: its
    // events/s is its own processing rate, not the rate at which the server takes writes.
    child.process.kill('SIGSTOP');
    const writeMs = await atConcurrency(UPDATES, CONCURRENCY, async (index) => {
      const patch = JSON.stringify({ data: { round: `${round}-${index}` } });
      await sendExpecting([200], agent, server.target, 'PATCH', `${COLLECTION}/${objectName(index)}`, patch, MERGE_PATCH);
    });
    // Timed from the resume, not from the first event seen: an informer that parses every event before
    // its handlers run would otherwise be timed on its handler dispatch alone.
    const resumedAt = wallClockMs();
    child.process.kill('SIGCONT');
    const done = (await messages.next('done')) as DoneMessage;
    return { side, synced, done, writeMs, backlogMs: done.lastUpdateAt - resumedAt };
  } finally {
    child.process.kill('SIGCONT');
    await child.stop(2_000);
  }
}

const perSecond = (count: number, ms: number): number => (count / ms) * 1000;
const fixed = (value: number, digits = 0): string => value.toFixed(digits);

function report(results: readonly SideResult[]): void {
  const rows = results.map((r) => ({
    side: r.side,
    syncPerSecond: perSecond(OBJECTS, r.synced.syncMs),
    eventsPerSecond: perSecond(r.done.updateEvents, r.backlogMs),
    writesPerSecond: perSecond(UPDATES, r.writeMs),
    heapPerObject: r.synced.heapBytes / OBJECTS,
    cpuMicrosPerEvent: (r.done.cpuMs * 1000) / r.done.updateEvents,
  }));
  console.log(
    'side'.padEnd(16) +
      'sync objects/s'.padStart(16) +
      'events/s'.padStart(12) +
      '(writes/s)'.padStart(12) +
      'heap B/object'.padStart(15) +
      'CPU us/event'.padStart(14),
  );
  for (const row of rows) {
    console.log(
      row.side.padEnd(16) +
        fixed(row.syncPerSecond).padStart(16) +
        fixed(row.eventsPerSecond).padStart(12) +
        `(${fixed(row.writesPerSecond)})`.padStart(12) +
        fixed(row.heapPerObject).padStart(15) +
        fixed(row.cpuMicrosPerEvent).padStart(14),
    );
  }
  const [protobuf, json, theirs, floor] = rows;
  const ratios = (label: string, side: (typeof rows)[number], base: (typeof rows)[number]): void =>
    console.log(
      label.padEnd(16) +
        `${fixed(side.syncPerSecond / base.syncPerSecond, 2)}x`.padStart(16) +
        `${fixed(side.eventsPerSecond / base.eventsPerSecond, 2)}x`.padStart(12) +
        ''.padStart(12) +
        `${fixed(side.heapPerObject / base.heapPerObject, 2)}x`.padStart(15) +
        `${fixed(base.cpuMicrosPerEvent / side.cpuMicrosPerEvent, 2)}x`.padStart(14),
    );
  if (protobuf && theirs) ratios('pb/client-node', protobuf, theirs);
  if (json && theirs) ratios('json/client-node', json, theirs);
  if (protobuf && json) ratios('pb/json', protobuf, json);
  if (floor && theirs) ratios('bare/client-node', floor, theirs);
  console.log(
    `events/s: ${UPDATES} update events processed, from resuming the child to its last event; the child is paused (SIGSTOP) while ` +
      `the parent writes them at ${CONCURRENCY} in flight (writes/s), then resumed to work through the backlog. CPU us/event: the child's ` +
      `CPU time (all its threads) for the backlog over the events, the figure to trust on a loaded machine; its ratio is client-node's over ours ` +
      `(above 1: ours is cheaper), like events/s. svc (protobuf) and svc (JSON): the same informer, its client speaking Kubernetes' ` +
      `protobuf or JSON (pb/json compares them, above 1: protobuf is better). bare JSON reader: the same list and watch with each line given to JSON.parse and ` +
      `put in a Map, nothing else: the floor under any informer that reads JSON, and so the most a JSON informer can reach beside client-node.`,
  );
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-informers-bench-'));
  let server: RunningServer | undefined;
  let agent: Agent | undefined;
  try {
    server = await startApiServer(dir);
    agent = keepAliveAgent(server.target, CONCURRENCY);
    const seeded = await seed(agent, server.target);
    console.log(
      `${OBJECTS} ConfigMaps of ${seeded.bytes} B created in ${fixed(seeded.ms)} ms at ${CONCURRENCY} in flight; ` +
        `${UPDATES} updates per side; ${cpus().length} CPUs, load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const svcconfig = join(dir, 'svcconfig');
    const results: SideResult[] = [];
    results.push(await measureSide('svc (protobuf)', 'svc-informer-child.js', server, svcconfig, agent, 1, ['application/vnd.kubernetes.protobuf']));
    results.push(await measureSide('svc (JSON)', 'svc-informer-child.js', server, svcconfig, agent, 2, ['application/json']));
    results.push(await measureSide('client-node 1.x', 'client-node-child.js', server, svcconfig, agent, 3));
    results.push(await measureSide('bare JSON reader', 'bare-reader-child.js', server, svcconfig, agent, 4));
    report(results);
  } finally {
    agent?.destroy();
    await server?.child.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
  }
}
