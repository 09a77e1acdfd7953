import { errorMessage } from '@svc/machinery';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, type ClosedLoopResult, type InterleaveOptions, type Side } from './closed-loop';
import { processCpuMicros } from './child-processes';
import { httpSide } from './http-load';
import { keepAliveAgent, sendExpecting, type HttpsTarget } from './https-client';
import { requestBytes } from './keep-alive-connection';
import { startApiServer, startBareServer, type RunningServer } from './server-processes';
import { openStoreCreates, type StoredTemplate } from './store-create';
import { watchFanout, type FanoutResult, type WatchedObject } from './watch-fanout';
import { seedObjects, watchInitialState } from './large-list';
import { positiveFromEnv } from '../support/env-number';
import { fairnessRow } from './fairness';

/**
 * API server figures beside references measured in the same run on the same machine:
 * - GET one ConfigMap and LIST a namespace of ConfigMaps (rv unset: read from the store; rv=0: from the
 *   watch cache) against a bare Node HTTPS handler in its own process serving the very bytes the
 *   server returned, with the same certificate, driven by the same client code;
 * - POST creates against the embedded storage backend's own `create` at the same concurrency, and
 *   against the bare handler parsing each body and creating it in a store of its own (the floor of any
 *   server over this store);
 * - how long one update takes to reach many watchers, one update at a time, from the API server and
 *   from the bare handler writing each update to every watch.
 * Both servers are child processes on loopback; the client is this process. Counts and durations are
 * fixed (environment variables below override them), and every child is stopped on the way out.
 */
const CONNECTIONS = positiveFromEnv('APISERVER_BENCH_CONNECTIONS', 32);
const WARMUP_MS = positiveFromEnv('APISERVER_BENCH_WARMUP_SECONDS', 1, { integer: false }) * 1000;
const DURATION_MS = positiveFromEnv('APISERVER_BENCH_SECONDS', 5, { integer: false }) * 1000;
const ROUNDS = positiveFromEnv('APISERVER_BENCH_ROUNDS', 5);
// Each window opens new connections, so later windows warm up briefly too.
const REWARM_MS = 200;
const LIST_SIZE = positiveFromEnv('APISERVER_BENCH_LIST_SIZE', 100);
const WATCHERS = positiveFromEnv('APISERVER_BENCH_WATCHERS', 1000);
const UPDATES = positiveFromEnv('APISERVER_BENCH_UPDATES', 200);
// The large-list rows: a namespace of this many ConfigMaps of 1 KiB, read whole (rv=0) and by pages.
const LARGE_LIST_SIZE = positiveFromEnv('APISERVER_BENCH_LARGE_LIST_SIZE', 10_000);
const LARGE_PAGE = positiveFromEnv('APISERVER_BENCH_LARGE_PAGE', 500);
const LARGE_CONNECTIONS = positiveFromEnv('APISERVER_BENCH_LARGE_CONNECTIONS', 2);
const INITIAL_STATE_WATCHES = positiveFromEnv('APISERVER_BENCH_INITIAL_STATE_WATCHES', 5);
// A whole list of 10,000 takes a second or more on a busy machine: its windows are longer than the others'.
const LARGE_SECONDS = positiveFromEnv('APISERVER_BENCH_LARGE_SECONDS', 10, { integer: false });

const READ_NAMESPACE = 'bench-read';
const CREATE_NAMESPACE = 'bench-create';
const WATCH_NAMESPACE = 'bench-watch';
const LARGE_NAMESPACE = 'bench-large';
const collectionPath = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;
const objectPath = (namespace: string, name: string): string => `${collectionPath(namespace)}/${name}`;

/** A ConfigMap of about 1 KiB of JSON, as the storage benchmark writes. */
function configMap(namespace: string, name: string, index: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench', tier: 'apiserver' } },
    data: { payload: 'x'.repeat(800), index: String(index) },
  };
}

interface Row {
  what: string;
  side: string;
  result: ClosedLoopResult;
}

async function createNamespaces(agent: Agent, target: HttpsTarget): Promise<void> {
  for (const name of [READ_NAMESPACE, CREATE_NAMESPACE, WATCH_NAMESPACE, LARGE_NAMESPACE]) {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // 404: a server that does not serve namespaces does not require them either.
    await sendExpecting([200, 201, 409, 404], agent, target, 'POST', '/api/v1/namespaces', body);
  }
}

/** Creates a ConfigMap through the server and returns it as stored. */
async function postConfigMap(agent: Agent, target: HttpsTarget, namespace: string, name: string, index: number): Promise<unknown> {
  const body = JSON.stringify(configMap(namespace, name, index));
  const reply = await sendExpecting([200, 201], agent, target, 'POST', collectionPath(namespace), body);
  return JSON.parse(reply.body.toString('utf8'));
}

async function seedReadNamespace(agent: Agent, target: HttpsTarget): Promise<void> {
  let next = 0;
  const seeder = async (): Promise<void> => {
    while (next < LIST_SIZE) {
      const index = next++;
      const name = `cm-${String(index).padStart(4, '0')}`;
      await postConfigMap(agent, target, READ_NAMESPACE, name, index);
    }
  };
  await Promise.all(Array.from({ length: 8 }, seeder));
}

/** GETs of `path`; any status but 200 fails the row. */
function reads(server: RunningServer, path: string, connections = CONNECTIONS): Side {
  const request = requestBytes(server.target, 'GET', path);
  const load = { target: server.target, pid: server.child.pid, label: `GET ${path}`, request: () => request, expected: [200] };
  return httpSide(load, connections);
}

/** POSTs of a new ConfigMap per operation, named `c-<window>-<worker>-<sequence>`; 200 and 201 are success. */
function creates(server: RunningServer, namespace: string): Side {
  const path = collectionPath(namespace);
  const request = (window: number, worker: number, sequence: number): Buffer =>
    requestBytes(server.target, 'POST', path, JSON.stringify(configMap(namespace, `c-${window}-${worker}-${sequence}`, sequence)));
  return httpSide({ target: server.target, pid: server.child.pid, label: `POST ${path}`, request, expected: [200, 201] }, CONNECTIONS);
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
}

function printTable(rows: readonly Row[]): void {
  const header = ['', '', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'client CPU µs/req'];
  const cells = rows.map(({ what, side, result }) => [
    what,
    side,
    fixed(result.perSecond, 0),
    fixed(result.p50, 2),
    fixed(result.p99, 2),
    fixed(result.cpuMicrosPerOperation, 0),
    fixed(result.clientCpuMicrosPerOperation, 0),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row: readonly string[]): string =>
    row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(line(header));
  for (const row of cells) console.log(line(row));
}

function printFanout(side: string, fanout: FanoutResult): void {
  console.log(`watch fan-out, ${side}: ${WATCHERS} watches opened in ${fanout.openSeconds.toFixed(1)} s, ${UPDATES} updates sent one at a time`);
  console.log(`  update sent -> last watcher received   p50 ${fixed(fanout.last.p50, 2)} ms   p99 ${fixed(fanout.last.p99, 2)} ms`);
  console.log(`  update sent -> each watcher received   p50 ${fixed(fanout.each.p50, 2)} ms   p99 ${fixed(fanout.each.p99, 2)} ms`);
  console.log(
    `  CPU per update (write + ${WATCHERS} deliveries): server ${fixed(fanout.serverCpuMsPerUpdate, 1)} ms, ` +
      `client ${fixed(fanout.clientCpuMsPerUpdate, 1)} ms`,
  );
}

function printRatios(rows: readonly Row[]): void {
  const find = (what: string, side: string): ClosedLoopResult => {
    const row = rows.find((candidate) => candidate.what === what && candidate.side === side);
    if (!row) throw new Error(`no row ${what} / ${side}`);
    return row.result;
  };
  const ratios: Array<[string, number]> = [];
  for (const [what, reference] of [
    ['GET one', 'GET one'],
    [`LIST ${LIST_SIZE}`, `LIST ${LIST_SIZE}`],
    [`LIST ${LIST_SIZE} rv=0`, `LIST ${LIST_SIZE}`],
  ]) {
    const ours = find(what, 'svc');
    const bare = find(reference, 'bare https');
    ratios.push([`${what} req/s, svc / bare https`, ours.perSecond / bare.perSecond]);
    ratios.push([`${what} p50 latency, svc / bare https`, ours.p50 / bare.p50]);
    ratios.push([`${what} p99 latency, svc / bare https`, ours.p99 / bare.p99]);
    if (ours.cpuMicrosPerOperation !== undefined && bare.cpuMicrosPerOperation !== undefined) {
      ratios.push([`${what} server CPU per request, svc / bare https`, ours.cpuMicrosPerOperation / bare.cpuMicrosPerOperation]);
    }
  }
  const storeCreates = find('CREATE', 'embedded store').perSecond;
  ratios.push(['CREATE req/s, svc / storage backend', find('CREATE', 'svc').perSecond / storeCreates]);
  // What any server over this store reaches: the least per create (parse, store, answer) over the same TLS.
  ratios.push(['CREATE req/s, bare https + store / storage backend', find('CREATE', 'bare https + store').perSecond / storeCreates]);
  const width = Math.max(...ratios.map(([label]) => label.length));
  for (const [label, value] of ratios) console.log(`${label.padEnd(width)}  ${value.toFixed(2)}`);
}

/**
 * LIST of a namespace of many 1 KiB ConfigMaps, whole from the watch cache (rv=0) and its first page
 * (limit, no resourceVersion: most recent, from the watch cache once it has caught up with the store),
 * beside the bare handler writing the same bytes; the
 * latency is the client's time to the last byte on loopback. Then watches of the same namespace from
 * rv=0, timed to the last ADDED event of the initial state.
 */
async function largeListRows(agent: Agent, api: RunningServer, dir: string, timing: InterleaveOptions, servers: RunningServer[]): Promise<void> {
  const collection = collectionPath(LARGE_NAMESPACE);
  const seededFrom = Date.now();
  await seedObjects(agent, api.target, collection, LARGE_LIST_SIZE, 16, (index) =>
    JSON.stringify(configMap(LARGE_NAMESPACE, `cm-${String(index).padStart(5, '0')}`, index)),
  );
  const allPath = `${collection}?resourceVersion=0`;
  const pagePath = `${collection}?limit=${LARGE_PAGE}`;
  const allBody = (await sendExpecting([200], agent, api.target, 'GET', allPath)).body;
  const pageBody = (await sendExpecting([200], agent, api.target, 'GET', pagePath)).body;
  const items = (JSON.parse(allBody.toString('utf8')) as { items?: unknown[] }).items?.length;
  if (items !== LARGE_LIST_SIZE) throw new Error(`the list of ${collection} holds ${items} items, not ${LARGE_LIST_SIZE}`);
  const bodies = join(dir, 'bare-large');
  mkdirSync(bodies);
  writeFileSync(join(bodies, 'all.json'), allBody);
  writeFileSync(join(bodies, 'page.json'), pageBody);
  const bare = await startBareServer(
    join(dir, 'apiserver', 'certs'),
    api.target.ca,
    new Map([
      ['/large/all', join(bodies, 'all.json')],
      ['/large/page', join(bodies, 'page.json')],
    ]),
  );
  servers.push(bare);
  console.log(
    `large list: ${LARGE_LIST_SIZE} ConfigMaps seeded in ${((Date.now() - seededFrom) / 1000).toFixed(1)} s; ` +
      `${LARGE_CONNECTIONS} connections; rv=0 body ${(allBody.length / 1e6).toFixed(1)} MB, page of ${LARGE_PAGE} ${(pageBody.length / 1e3).toFixed(0)} kB`,
  );
  const largeTiming: InterleaveOptions = { ...timing, durationMs: Math.max(timing.durationMs, LARGE_SECONDS * 1000) };
  const [bareAll, ourAll] = await interleave([reads(bare, '/large/all', LARGE_CONNECTIONS), reads(api, allPath, LARGE_CONNECTIONS)], largeTiming);
  const [barePage, ourPage] = await interleave([reads(bare, '/large/page', LARGE_CONNECTIONS), reads(api, pagePath, LARGE_CONNECTIONS)], largeTiming);
  const rows: Row[] = [
    { what: `LIST ${LARGE_LIST_SIZE} rv=0`, side: 'bare https', result: bareAll },
    { what: `LIST ${LARGE_LIST_SIZE} rv=0`, side: 'svc', result: ourAll },
    { what: `LIST ${LARGE_LIST_SIZE} limit=${LARGE_PAGE}`, side: 'bare https', result: barePage },
    { what: `LIST ${LARGE_LIST_SIZE} limit=${LARGE_PAGE}`, side: 'svc', result: ourPage },
  ];
  printTable(rows);
  const ratios: Array<[string, number]> = [];
  for (const [ours, theirs, what] of [
    [ourAll, bareAll, `LIST ${LARGE_LIST_SIZE} rv=0`],
    [ourPage, barePage, `LIST ${LARGE_LIST_SIZE} limit=${LARGE_PAGE}`],
  ] as const) {
    ratios.push([`${what} req/s, svc / bare https`, ours.perSecond / theirs.perSecond]);
    ratios.push([`${what} p99 time to last byte, svc / bare https`, ours.p99 / theirs.p99]);
    if (ours.cpuMicrosPerOperation !== undefined && theirs.cpuMicrosPerOperation !== undefined) {
      ratios.push([`${what} server CPU per request, svc / bare https`, ours.cpuMicrosPerOperation / theirs.cpuMicrosPerOperation]);
    }
  }
  const width = Math.max(...ratios.map(([label]) => label.length));
  for (const [label, value] of ratios) console.log(`${label.padEnd(width)}  ${value.toFixed(2)}`);

  const initial = await watchInitialState(api.target, `${collection}?watch=1&resourceVersion=0`, LARGE_LIST_SIZE, INITIAL_STATE_WATCHES, () =>
    processCpuMicros(api.child.pid),
  );
  console.log(
    `watch of ${LARGE_LIST_SIZE} objects from rv=0, to the last initial ADDED event (${INITIAL_STATE_WATCHES} watches): ` +
      `p50 ${fixed(initial.latency.p50, 1)} ms  p99 ${fixed(initial.latency.p99, 1)} ms  server CPU ${fixed(initial.serverCpuMs, 1)} ms per watch ` +
      `(the bare handler writes the rv=0 list's bytes in p50 ${fixed(bareAll.p50, 1)} ms)`,
  );
}

function machine(): string {
  return `${cpus().length} CPUs, load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}`;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-apiserver-bench-'));
  const timing: InterleaveOptions = { warmupMs: WARMUP_MS, rewarmMs: REWARM_MS, durationMs: DURATION_MS, rounds: ROUNDS };
  const servers: RunningServer[] = [];
  // The finally below does not run when a signal ends the process; the exit handler still does.
  const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
  process.on('exit', removeDir);
  const agents: Agent[] = [];
  try {
    const api = await startApiServer(join(dir, 'apiserver'));
    servers.push(api);
    const agent = keepAliveAgent(api.target, CONNECTIONS);
    agents.push(agent);
    await createNamespaces(agent, api.target);
    await seedReadNamespace(agent, api.target);

    const getPath = objectPath(READ_NAMESPACE, 'cm-0000');
    const listPath = collectionPath(READ_NAMESPACE);
    const getBody = (await sendExpecting([200], agent, api.target, 'GET', getPath)).body;
    const listBody = (await sendExpecting([200], agent, api.target, 'GET', listPath)).body;
    const items = (JSON.parse(listBody.toString('utf8')) as { items?: unknown[] }).items?.length;
    if (items !== LIST_SIZE) throw new Error(`the list of ${listPath} holds ${items} items, not ${LIST_SIZE}`);
    const bodies = join(dir, 'bare');
    mkdirSync(bodies);
    writeFileSync(join(bodies, 'get.json'), getBody);
    writeFileSync(join(bodies, 'list.json'), listBody);
    const bare = await startBareServer(
      join(dir, 'apiserver', 'certs'),
      api.target.ca,
      new Map([
        [getPath, join(bodies, 'get.json')],
        [listPath, join(bodies, 'list.json')],
      ]),
      join(dir, 'bare-store'),
    );
    servers.push(bare);

    console.log(
      `apiserver benchmark: ${CONNECTIONS} keep-alive HTTPS connections; per row ${DURATION_MS / 1000} s measured in ${ROUNDS} windows ` +
        `alternating with the rows it is compared with, after ${WARMUP_MS / 1000} s warm-up; ` +
        `GET body ${getBody.length} B, LIST body ${listBody.length} B (${LIST_SIZE} ConfigMaps); ${machine()}`,
    );
    const rows: Row[] = [];
    const [bareGet, ourGet] = await interleave([reads(bare, getPath), reads(api, getPath)], timing);
    rows.push({ what: 'GET one', side: 'bare https', result: bareGet }, { what: 'GET one', side: 'svc', result: ourGet });
    const [bareList, ourList, ourCachedList] = await interleave(
      [reads(bare, listPath), reads(api, listPath), reads(api, `${listPath}?resourceVersion=0`)],
      timing,
    );
    rows.push(
      { what: `LIST ${LIST_SIZE}`, side: 'bare https', result: bareList },
      { what: `LIST ${LIST_SIZE}`, side: 'svc', result: ourList },
      { what: `LIST ${LIST_SIZE} rv=0`, side: 'svc', result: ourCachedList },
    );

    // The store writes what the server stored for one create, so both write the same bytes per object.
    const template = (await postConfigMap(agent, api.target, CREATE_NAMESPACE, 'c-0-00-000', 0)) as StoredTemplate;
    const store = await openStoreCreates(join(dir, 'store'), CREATE_NAMESPACE, template, CONNECTIONS);
    try {
      const [ourCreate, storeCreate, bareCreate] = await interleave([creates(api, CREATE_NAMESPACE), store.side, creates(bare, CREATE_NAMESPACE)], timing);
      rows.push(
        { what: 'CREATE', side: 'svc', result: ourCreate },
        { what: 'CREATE', side: 'embedded store', result: storeCreate },
        { what: 'CREATE', side: 'bare https + store', result: bareCreate },
      );
    } finally {
      await store.close();
    }

    printTable(rows);
    console.log('(server CPU: of the serving process; for the embedded store, of this process, which also runs the load loop)');
    printRatios(rows);

    const watchedName = 'watched';
    const watched = (await postConfigMap(agent, api.target, WATCH_NAMESPACE, watchedName, 0)) as WatchedObject;
    const fanout = await watchFanout(api.target, collectionPath(WATCH_NAMESPACE), objectPath(WATCH_NAMESPACE, watchedName), watched, {
      watchers: WATCHERS,
      updates: UPDATES,
      openConcurrency: 50,
      stepTimeoutMs: 30_000,
      serverCpuMicros: () => processCpuMicros(api.child.pid),
    });

    printFanout('svc', fanout);
    // The same watches and updates against the bare handler, which writes each update's body to every
    // watch as one pre-framed chunk: the least one process can do per change.
    const bareFanout = await watchFanout(bare.target, collectionPath(WATCH_NAMESPACE), objectPath(WATCH_NAMESPACE, watchedName), watched, {
      watchers: WATCHERS,
      updates: UPDATES,
      openConcurrency: 50,
      stepTimeoutMs: 30_000,
      serverCpuMicros: () => processCpuMicros(bare.child.pid),
    });
    printFanout('bare https', bareFanout);

    await largeListRows(agent, api, dir, timing, servers);

    const fairness = await fairnessRow(dir, servers);
    console.log(
      `priority and fairness: a well-behaved client (GET one ConfigMap) alone, then beside a client LISTing ` +
        `a namespace of ConfigMaps as fast as its connections allow, both users in the global-default level`,
    );
    console.log(`  alone          p50 ${fixed(fairness.quiet.p50, 2)} ms   p99 ${fixed(fairness.quiet.p99, 2)} ms   (${fairness.quiet.operations} requests)`);
    console.log(
      `  beside flood   p50 ${fixed(fairness.flooded.p50, 2)} ms   p99 ${fixed(fairness.flooded.p99, 2)} ms   (${fairness.flooded.operations} requests)`,
    );
    console.log(
      `  the flood: ${fixed(fairness.flood.perSecond, 0)} LIST/s, ${fairness.flood.rejected} of ${fairness.flood.operations} answered 429, ${fairness.flood.resets} connections reset`,
    );
    console.log(`well-behaved client p99 latency, beside flood / alone  ${(fairness.flooded.p99 / fairness.quiet.p99).toFixed(2)}`);
    console.log(`after the run: ${machine()}`);
  } catch (error) {
    // A refused connection or a closed stream usually means a server died: say which, with its last words.
    const dead = servers.filter((server) => server.child.process.exitCode !== null || server.child.process.signalCode !== null);
    if (dead.length === 0) throw error;
    const words = dead.map((server) => `${server.name} (pid ${server.child.pid}) exited; its last output:\n${server.child.output()}`).join('\n');
    throw new Error(`${errorMessage(error)}\n${words}`);
  } finally {
    for (const agent of agents) agent.destroy();
    for (const server of servers.reverse()) await server.child.stop();
    process.off('exit', removeDir);
    removeDir();
  }
}
