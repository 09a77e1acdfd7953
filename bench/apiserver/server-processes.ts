import { errorMessage } from '@svc/machinery';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { SERVING_CERT_FILE, SERVING_KEY_FILE } from '@svc/apiserver';
import { startNodeChild, type Child } from './child-processes';
import { keepAliveAgent, send, type HttpsTarget } from './https-client';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 3;

// The compiled entry bin/svc-apiserver.js runs, resolved beside this compiled file (dist/bench/apiserver/),
// so the benchmark always drives the build it was compiled with.
const API_SERVER_ENTRY = join(__dirname, '..', '..', 'apps', 'apiserver', 'src', 'main.js');
const BARE_SERVER_ENTRY = join(__dirname, 'bare-server.js');

export interface RunningServer {
  name: string;
  child: Child;
  target: HttpsTarget;
}

/** A port free on loopback right now; the API server's flag refuses 0, so it is chosen here. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, HOST, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function caFromConnectionFile(file: string): string {
  const config = parse(readFileSync(file, 'utf8')) as { clusters?: Array<{ cluster?: Record<string, string> }> };
  const data = config.clusters?.[0]?.cluster?.['certificate-authority-data'];
  if (!data) throw new Error(`${file} names no certificate-authority-data`);
  return Buffer.from(data, 'base64').toString('utf8');
}

async function waitForReady(child: Child, connectionFile: string, port: number): Promise<HttpsTarget> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastProblem = 'no client connection file yet';
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`the API server exited before it was ready:\n${child.output()}`);
    }
    if (existsSync(connectionFile)) {
      const target = { host: HOST, port, ca: caFromConnectionFile(connectionFile) };
      const agent = keepAliveAgent(target, 1);
      try {
        const reply = await send(agent, target, 'GET', '/readyz', undefined, undefined, 2_000);
        if (reply.status === 200) return target;
        lastProblem = `/readyz answered ${reply.status}: ${reply.body.toString('utf8', 0, 300)}`;
      } catch (error) {
        lastProblem = errorMessage(error);
      } finally {
        agent.destroy();
      }
    }
    await sleep(100);
  }
  throw new Error(`the API server was not ready within ${READY_TIMEOUT_MS} ms (${lastProblem}):\n${child.output()}`);
}

/**
 * Starts the API server on loopback with its in-flight caps off (the benchmark drives it harder than the
 * default caps allow; priority and fairness must be off for a cap of 0 to mean "none"), waits for
 * `/readyz` and reads the CA from the client connection file it writes.
 */
export async function startApiServer(dir: string, extraFlags: readonly string[] = []): Promise<RunningServer> {
  if (!existsSync(API_SERVER_ENTRY)) throw new Error(`${API_SERVER_ENTRY} is missing; run "npm run build" first`);
  const connectionFile = join(dir, 'svcconfig');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = startNodeChild(API_SERVER_ENTRY, [
      `--bind-address=${HOST}`,
      `--secure-port=${port}`,
      `--data-dir=${join(dir, 'data')}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--svcconfig-out=${connectionFile}`,
      '--enable-priority-and-fairness=false',
      '--max-requests-inflight=0',
      '--max-mutating-requests-inflight=0',
      ...extraFlags,
    ]);
    try {
      return { name: 'API server', child, target: await waitForReady(child, connectionFile, port) };
    } catch (error) {
      await child.stop(1_000);
      // Another process may take the probed port between the probe and the server's listen.
      if (attempt < START_ATTEMPTS && /EADDRINUSE|address already in use/i.test(child.output())) continue;
      throw error;
    }
  }
}

/**
 * Starts the bare HTTPS handler with the API server's own certificate, serving `routes` (path -> body
 * file), watches, and with `storeDir` creates into an embedded store of its own there (see bare-server.ts).
 */
export async function startBareServer(certDir: string, ca: string, routes: ReadonlyMap<string, string>, storeDir?: string): Promise<RunningServer> {
  let announce: (port: number) => void = () => undefined;
  const announced = new Promise<number>((resolve) => (announce = resolve));
  const child = startNodeChild(
    BARE_SERVER_ENTRY,
    [
      join(certDir, SERVING_CERT_FILE),
      join(certDir, SERVING_KEY_FILE),
      ...(storeDir ? [`--store=${storeDir}`] : []),
      ...[...routes].map(([path, file]) => `${path}=${file}`),
    ],
    (line) => {
      const match = /^listening (\d+)$/.exec(line.trim());
      if (match) announce(Number(match[1]));
    },
  );
  const port = await Promise.race([
    announced,
    child.exited.then((how) => Promise.reject(new Error(`the bare server exited (${how}):\n${child.output()}`))),
    sleep(READY_TIMEOUT_MS, undefined, { ref: false }).then(() => Promise.reject(new Error('the bare server did not start'))),
  ]);
  return { name: 'bare HTTPS server', child, target: { host: HOST, port, ca } };
}
