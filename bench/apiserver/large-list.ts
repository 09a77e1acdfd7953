import { performance } from 'node:perf_hooks';
import type { Agent } from 'node:https';
import { sendExpecting, type HttpsTarget } from './https-client';
import { connectTls, requestBytes } from './keep-alive-connection';
import { summarize, type LatencySummary } from './stats';

const HEAD_END = Buffer.from('\r\n\r\n');
const ADDED = Buffer.from('"type":"ADDED"');
const STEP_TIMEOUT_MS = 120_000;

/** Creates `count` ConfigMaps made by `body(index)` in `collectionPath`, `concurrency` at a time. */
export async function seedObjects(
  agent: Agent,
  target: HttpsTarget,
  collectionPath: string,
  count: number,
  concurrency: number,
  body: (index: number) => string,
): Promise<void> {
  let next = 0;
  const seeder = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      await sendExpecting([200, 201, 409], agent, target, 'POST', collectionPath, body(index));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, seeder));
}

export interface InitialStateResult {
  /** From sending the watch request to receiving its `count`th ADDED event, ms. */
  latency: LatencySummary;
  /** Server CPU per watch, ms, when readable. */
  serverCpuMs?: number;
}

/**
 * Opens `rounds` watches of `path` one after the other, each on a new TLS connection, and times how
 * long the server takes to stream `count` ADDED events (the initial state), counted in the raw bytes.
 */
export async function watchInitialState(
  target: HttpsTarget,
  path: string,
  count: number,
  rounds: number,
  serverCpuMicros: () => number | undefined,
): Promise<InitialStateResult> {
  const times: number[] = [];
  const cpuBefore = serverCpuMicros();
  for (let round = 0; round < rounds; round++) times.push(await oneWatch(target, path, count));
  const cpuAfter = serverCpuMicros();
  const serverCpuMs = cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / 1000 / rounds : undefined;
  return { latency: summarize(times), serverCpuMs };
}

async function oneWatch(target: HttpsTarget, path: string, count: number): Promise<number> {
  const socket = await connectTls(target);
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the watch of ${path} did not send ${count} ADDED events within ${STEP_TIMEOUT_MS} ms`)),
        STEP_TIMEOUT_MS,
      );
      let head: Buffer | undefined = Buffer.alloc(0);
      let carry = Buffer.alloc(0);
      let seen = 0;
      const sentAt = performance.now();
      socket.on('data', (chunk: Buffer) => {
        let body = chunk;
        if (head) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf(HEAD_END);
          if (end < 0) return;
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1', 0, Math.min(end, 100)));
          if (status?.[1] !== '200') {
            clearTimeout(timer);
            reject(new Error(`the watch of ${path} answered ${head.toString('utf8', 0, Math.min(head.length, 600))}`));
            return;
          }
          body = head.subarray(end + HEAD_END.length);
          head = undefined;
        }
        // A marker may straddle two reads: search the previous read's tail together with this one.
        const scanned = carry.length > 0 ? Buffer.concat([carry, body]) : body;
        for (let at = scanned.indexOf(ADDED); at >= 0; at = scanned.indexOf(ADDED, at + ADDED.length)) seen++;
        carry = Buffer.from(scanned.subarray(Math.max(0, scanned.length - (ADDED.length - 1))));
        if (seen >= count) {
          clearTimeout(timer);
          resolve(performance.now() - sentAt);
        }
      });
      socket.once('error', (error: Error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.write(requestBytes(target, 'GET', path));
    });
  } finally {
    socket.destroy();
  }
}
