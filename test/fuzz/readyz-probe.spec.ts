import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '@svc/apiserver';
import { ReadyzProbe } from './readyz-probe';

// The probe runs in a worker so that the fuzzer's own work never shows as server latency: a fuzzer
// that holds its thread (parsing a large answer) must not report a quick server as unanswered.

let dir: string;
let url: string;
let ca: string;
let server: Worker;

// The server answers from its own thread, as the real one does from its own process.
const SERVER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let delayMs = 0;
parentPort.on('message', (message) => (delayMs = message));
const server = require('node:https').createServer({ cert: workerData.cert, key: workerData.key }, (req, res) => {
  setTimeout(() => res.end('ok'), delayMs);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

function answerAfter(ms: number): Promise<void> {
  server.postMessage(ms);
  return new Promise((resolve) => setTimeout(resolve, 50));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readyz-probe-'));
  const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
  ca = certs.caPem ?? '';
  server = new Worker(SERVER_SOURCE, { eval: true, workerData: { cert: certs.certPem, key: certs.keyPem } });
  const port = await new Promise<number>((resolve) => server.once('message', resolve));
  url = `https://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server.terminate();
  rmSync(dir, { recursive: true, force: true });
});

function holdThread(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy, as a long synchronous parse is
  }
}

it('does not count the time its own thread was busy against the server', async () => {
  await answerAfter(0);
  const probe = new ReadyzProbe(url, ca, 50);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Busy inside an I/O callback, as the fuzzer is when it judges an answer: the worker's samples
    // are then read only on the next turn of the loop.
    await new Promise((resolve, reject) => get(url, { ca }, (res) => res.resume().on('end', resolve)).on('error', reject));
    const from = Date.now();
    holdThread(1_500);
    expect(await probe.violations(from, Date.now(), 1_000)).toEqual([]);
  } finally {
    await probe.stop();
  }
});

it('reports a probe the server has not answered within the limit', async () => {
  await answerAfter(2_000);
  const probe = new ReadyzProbe(url, ca, 50);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const found = await probe.violations(Date.now() - 300, Date.now(), 1_000);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^\/readyz (unanswered|took) /);
  } finally {
    await answerAfter(0);
    await probe.stop();
  }
});
