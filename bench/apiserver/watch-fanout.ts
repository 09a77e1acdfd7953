import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { keepAliveAgent, sendExpecting, type HttpsTarget } from './https-client';
import { connectTls, requestBytes } from './keep-alive-connection';
import { summarize, type LatencySummary } from './stats';

export interface FanoutOptions {
  watchers: number;
  updates: number;
  /** Watches whose response headers are awaited at once while opening (TLS handshakes cost CPU). */
  openConcurrency: number;
  /** Longest wait for one update to reach every watcher. */
  stepTimeoutMs: number;
  /** Cumulative CPU microseconds of the server, read around the updates. */
  serverCpuMicros?: () => number | undefined;
}

export interface FanoutResult {
  openSeconds: number;
  /** Per update: from sending the update request to the last watcher receiving its event, ms. */
  last: LatencySummary;
  /** Per update and watcher: from sending the update request to that watcher receiving the event, ms. */
  each: LatencySummary;
  /** CPU per update (its write and its delivery to every watcher), ms: of the server, when readable, and of this client. */
  serverCpuMsPerUpdate?: number;
  clientCpuMsPerUpdate: number;
}

/** What the fan-out needs of the watched object: its JSON as the server returned it. */
export interface WatchedObject {
  metadata: { resourceVersion?: string };
  data?: Record<string, string>;
  [field: string]: unknown;
}

interface Step {
  marker: string;
  sentAt: number;
  remaining: number;
  lastAt: number;
  seen: Uint8Array;
  done: () => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
// A thousand TLS handshakes plus watch set-ups take tens of seconds on a busy two-core machine.
const OPEN_TIMEOUT_MS = 180_000;
const ERROR_EVENT = Buffer.from('"type":"ERROR"');

/**
 * Opens `watchers` watches of `collectionPath` from the object's resourceVersion, each on its own
 * keep-alive TLS connection, then updates the object `updates` times, one at a time: each update writes
 * a unique marker into `data.seq`, and the next is sent only once every watcher has received the event
 * carrying it. Watch streams are read as raw bytes and events recognised by their marker, without
 * decoding or parsing, so that the client's own cost per event stays small beside the server's: with
 * a thousand streams in one client process, every microsecond per event adds a millisecond to the
 * time the last watcher sees an update.
 */
export async function watchFanout(
  target: HttpsTarget,
  collectionPath: string,
  objectPath: string,
  initial: WatchedObject,
  options: FanoutOptions,
): Promise<FanoutResult> {
  const writer = keepAliveAgent(target, 1);
  const sockets: TLSSocket[] = [];
  const each: number[] = [];
  const last: number[] = [];
  let step: Step | undefined;
  let failure: Error | undefined;
  let failStep: (error: Error) => void = () => undefined;
  let closing = false;

  const fail = (error: Error): void => {
    if (closing || failure) return;
    failure = error;
    failStep(error);
  };

  const onBody = (watcher: number, bytes: Buffer, carry: Buffer): void => {
    if (bytes.indexOf(ERROR_EVENT) >= 0) fail(new Error(`watcher ${watcher} received ${bytes.toString('utf8', 0, 300)}`));
    const current = step;
    if (!current || current.seen[watcher] === 1) return;
    // The marker may straddle two reads: look across the boundary with the previous read's tail.
    const found =
      bytes.indexOf(current.marker) >= 0 ||
      (carry.length > 0 && Buffer.concat([carry, bytes.subarray(0, current.marker.length - 1)]).indexOf(current.marker) >= 0);
    if (!found) return;
    const now = performance.now();
    current.seen[watcher] = 1;
    each.push(now - current.sentAt);
    current.lastAt = now;
    if (--current.remaining === 0) current.done();
  };

  const open = async (watcher: number, rv: string): Promise<void> => {
    const socket = await connectTls(target);
    sockets.push(socket);
    const path = `${collectionPath}?watch=1&resourceVersion=${encodeURIComponent(rv)}`;
    await new Promise<void>((resolve, reject) => {
      let head: Buffer | undefined = Buffer.alloc(0);
      let carry = Buffer.alloc(0);
      const tailLength = MARKER_LENGTH - 1;
      socket.on('data', (chunk: Buffer) => {
        let body = chunk;
        if (head) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf(HEAD_END);
          if (end < 0) return;
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1', 0, Math.min(end, 100)));
          if (status?.[1] !== '200') {
            reject(new Error(`watch ${watcher} answered ${head.toString('utf8', 0, Math.min(head.length, 600))}`));
            return;
          }
          body = head.subarray(end + HEAD_END.length);
          head = undefined;
          resolve();
        }
        if (body.length === 0) return;
        onBody(watcher, body, carry);
        carry = Buffer.from(body.subarray(Math.max(0, body.length - tailLength)));
      });
      const lost = (error?: Error): void => {
        const problem = error ?? new Error(`watch ${watcher} was closed by the server`);
        reject(problem);
        fail(problem);
      };
      socket.on('error', lost);
      socket.on('close', () => lost());
      socket.write(requestBytes(target, 'GET', path));
    });
  };

  try {
    const rv = initial.metadata.resourceVersion;
    if (!rv) throw new Error('the watched object has no resourceVersion');
    const openedFrom = performance.now();
    let next = 0;
    const opener = async (): Promise<void> => {
      while (next < options.watchers && !failure) await open(next++, rv);
    };
    await withTimeout(Promise.all(Array.from({ length: Math.min(options.openConcurrency, options.watchers) }, opener)), OPEN_TIMEOUT_MS, 'opening the watches');
    if (failure) throw failure;
    const openSeconds = (performance.now() - openedFrom) / 1000;

    const serverCpuBefore = options.serverCpuMicros?.();
    const clientCpuBefore = process.cpuUsage();
    let current: WatchedObject = initial;
    for (let update = 1; update <= options.updates; update++) {
      const marker = markerOf(update);
      if (failure) throw failure as Error;
      let done: () => void = () => undefined;
      const delivered = new Promise<void>((resolve, reject) => {
        done = resolve;
        failStep = reject;
      });
      const active: Step = { marker, sentAt: 0, remaining: options.watchers, lastAt: 0, seen: new Uint8Array(options.watchers), done };
      step = active;
      const body = JSON.stringify({ ...current, data: { ...current.data, seq: marker } });
      active.sentAt = performance.now();
      const written = sendExpecting([200], writer, target, 'PUT', objectPath, body);
      const [reply] = await withTimeout(
        Promise.all([written, delivered]),
        options.stepTimeoutMs,
        () => `update ${update} reaching all watchers (${options.watchers - active.remaining} of ${options.watchers} saw it)`,
      );
      last.push(active.lastAt - active.sentAt);
      current = JSON.parse(reply.body.toString('utf8')) as WatchedObject;
    }
    const serverCpuAfter = options.serverCpuMicros?.();
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const serverCpu = serverCpuBefore !== undefined && serverCpuAfter !== undefined ? serverCpuAfter - serverCpuBefore : undefined;
    return {
      openSeconds,
      last: summarize(last),
      each: summarize(each),
      serverCpuMsPerUpdate: serverCpu !== undefined ? serverCpu / 1000 / options.updates : undefined,
      clientCpuMsPerUpdate: (clientCpu.user + clientCpu.system) / 1000 / options.updates,
    };
  } finally {
    closing = true;
    for (const socket of sockets) socket.destroy();
    writer.destroy();
  }
}

const markerOf = (update: number): string => `bench-update-${String(update).padStart(6, '0')}`;
const MARKER_LENGTH = markerOf(0).length;

async function withTimeout<T>(work: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${typeof what === 'string' ? what : what()}`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
