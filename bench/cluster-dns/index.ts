import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { Client, loadClientConfig } from '@svc/client';
import { positiveFromEnv } from '../support/env-number';

/**
 * Queries per second of the cluster DNS (the `svc-dns` process, its caches filled from a real API
 * server process with SERVICES Services), beside a bare UDP echo process that sends back the very
 * answer svc-dns gave (the ID patched): the floor of one Node.js process answering datagrams on
 * loopback. One client socket keeps IN_FLIGHT queries outstanding for SECONDS seconds against each.
 */
const SERVICES = positiveFromEnv('DNS_BENCH_SERVICES', 200);
const SECONDS = positiveFromEnv('DNS_BENCH_SECONDS', 5);
const IN_FLIGHT = positiveFromEnv('DNS_BENCH_IN_FLIGHT', 32);

const ROOT = join(__dirname, '..', '..');
const API_SERVER_ENTRY = join(ROOT, 'apps', 'apiserver', 'src', 'main.js');
const DNS_ENTRY = join(ROOT, 'apps', 'dns', 'src', 'main.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The echo: one datagram in, the prepared answer out with the query's ID.
const ECHO = `
const s = require('node:dgram').createSocket('udp4');
const answer = Buffer.from(process.argv[1], 'base64');
s.on('message', (m, from) => { if (m.length < 2) return; const r = Buffer.from(answer); m.copy(r, 0, 0, 2); s.send(r, from.port, from.address); });
s.bind(0, '127.0.0.1', () => console.log('port ' + s.address().port));
`;

function child(args: string[]): { process: ChildProcess; output: () => string } {
  let output = '';
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { process: proc, output: () => output };
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Answers per second from `port` with IN_FLIGHT queries outstanding; a lost datagram is resent after 200 ms. */
async function load(port: number, query: Buffer): Promise<{ qps: number; first: Buffer | undefined }> {
  const socket = createSocket('udp4');
  let answered = 0;
  let first: Buffer | undefined;
  const end = Date.now() + SECONDS * 1000;
  const send = (id: number) => {
    const q = Buffer.from(query);
    q.writeUInt16BE(id, 0);
    socket.send(q, port, '127.0.0.1');
  };
  const sentAt = new Map<number, number>();
  socket.on('message', (reply) => {
    const id = reply.readUInt16BE(0);
    if (!sentAt.delete(id)) return;
    answered++;
    first ??= reply;
    if (Date.now() < end) {
      sentAt.set(id, Date.now());
      send(id);
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const started = Date.now();
  for (let id = 1; id <= IN_FLIGHT; id++) {
    sentAt.set(id, Date.now());
    send(id);
  }
  while (Date.now() < end) {
    await sleep(100);
    for (const [id, at] of sentAt) {
      if (Date.now() - at <= 200) continue;
      sentAt.set(id, Date.now());
      send(id);
    }
  }
  await sleep(200);
  socket.close();
  return { qps: answered / ((Date.now() - started - 200) / 1000), first };
}

export async function run(): Promise<void> {
  if (!existsSync(DNS_ENTRY)) throw new Error(`${DNS_ENTRY} is missing; run "npm run build" first`);
  const dir = mkdtempSync(join(tmpdir(), 'svcdns-bench-'));
  const processes: ChildProcess[] = [];
  try {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const apiserver = child([
      API_SERVER_ENTRY,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--data-dir=${join(dir, 'data')}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--svcconfig-out=${join(dir, 'svcconfig')}`,
    ]);
    processes.push(apiserver.process);
    await waitFor('the API server', () => (/Serving securely/.test(apiserver.output()) ? true : undefined));
    const client = new Client(await loadClientConfig({ svcconfig: join(dir, 'svcconfig') }));
    for (let i = 0; i < SERVICES; i++)
      await client.services.create(
        { metadata: { name: `web-${i}`, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } },
        { namespace: 'default' },
      );
    client.close();
    const dns = child([DNS_ENTRY, `--svcconfig=${join(dir, 'svcconfig')}`, '--bind-address=127.0.0.1', '--port=0', '--resolv-conf=']);
    processes.push(dns.process);
    const dnsPort = Number(await waitFor('svc-dns', () => /on 127\.0\.0\.1:(\d+)/.exec(dns.output())?.[1]));
    const query = dnsPacket.encode({
      type: 'query',
      id: 1,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: `web-${SERVICES - 1}.default.svc.cluster.local`, type: 'A', class: 'IN' }],
    });

    const cluster = await load(dnsPort, query);
    if (!cluster.first || dnsPacket.decode(cluster.first).answers?.length !== 1) throw new Error('svc-dns gave no A record');
    const echo = child(['-e', ECHO, cluster.first.toString('base64')]);
    processes.push(echo.process);
    const echoPort = Number(await waitFor('the echo', () => /port (\d+)/.exec(echo.output())?.[1]));
    const bare = await load(echoPort, query);
    console.log(`  ${SERVICES} Services, ${IN_FLIGHT} queries in flight over UDP on loopback, ${SECONDS} s each`);
    console.log(`  svc-dns, A of a ClusterIP Service                 ${cluster.qps.toFixed(0)} queries/s  (${(cluster.qps / bare.qps).toFixed(2)}x)`);
    console.log(`  bare UDP echo of the same answer                  ${bare.qps.toFixed(0)} queries/s  (1.00x)`);
  } finally {
    for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
