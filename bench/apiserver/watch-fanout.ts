import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { keepAliveAgent, sendExpecting, type HttpsTarget } from './https-client';
import { summarize, type LatencySummary } from './stats';

export interface FanoutOptions {
  watchers: number;
  updates: number;
  /** Watches whose response headers are awaited at once while opening (TLS handshakes cost CPU). */
  openConcurrency: number;
  /** Longest wait for one update to reach every watcher. */
  stepTimeoutMs: number;
}

export interface FanoutResult {
  openSeconds: number;
  /** Per update: from sending the update request to the last watcher receiving its event, ms. */
  last: LatencySummary;
  /** Per update and watcher: from sending the update request to that watcher receiving the event, ms. */
  each: LatencySummary;
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

/**
 * Opens `watchers` watches of `collectionPath` from the object's resourceVersion, each on its own
 * keep-alive connection, then updates the object `updates` times, one at a time: each update writes a
 * unique marker into `data.seq`, and the next is sent only once every watcher has received the event
 * carrying it. Events are recognised by the marker in the raw line, not by parsing every event, so the
 * client's own cost stays small beside the server's.
 */
export async function watchFanout(
  target: HttpsTarget,
  collectionPath: string,
  objectPath: string,
  initial: WatchedObject,
  options: FanoutOptions,
): Promise<FanoutResult> {
  const agent = keepAliveAgent(target, options.watchers + 1);
  const writer = keepAliveAgent(target, 1);
  const requests: ClientRequest[] = [];
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

  const onLine = (watcher: number, line: string): void => {
    if (line.startsWith('{"type":"ERROR"')) fail(new Error(`watcher ${watcher} received ${line.slice(0, 300)}`));
    const current = step;
    if (!current || current.seen[watcher] === 1 || !line.includes(current.marker)) return;
    const now = performance.now();
    current.seen[watcher] = 1;
    each.push(now - current.sentAt);
    current.lastAt = now;
    if (--current.remaining === 0) current.done();
  };

  const follow = (watcher: number, res: IncomingMessage): void => {
    let pending = '';
    res.setEncoding('utf8');
    res.on('data', (text: string) => {
      pending += text;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        onLine(watcher, pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
    res.on('end', () => fail(new Error(`watch ${watcher} ended by the server`)));
    res.on('error', (error) => fail(error));
  };

  const open = (watcher: number, rv: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        {
          agent,
          host: target.host,
          port: target.port,
          path: `${collectionPath}?watch=1&resourceVersion=${encodeURIComponent(rv)}`,
          headers: { accept: 'application/json' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            let body = '';
            res.setEncoding('utf8').on('data', (text: string) => (body += text));
            res.on('end', () => reject(new Error(`watch ${watcher} answered ${res.statusCode}: ${body.slice(0, 300)}`)));
            return;
          }
          follow(watcher, res);
          resolve();
        },
      );
      req.on('error', (error) => {
        reject(error);
        fail(error);
      });
      req.end();
      requests.push(req);
    });

  try {
    const rv = initial.metadata.resourceVersion;
    if (!rv) throw new Error('the watched object has no resourceVersion');
    const openedFrom = performance.now();
    let next = 0;
    const opener = async (): Promise<void> => {
      while (next < options.watchers && !failure) await open(next++, rv);
    };
    await withTimeout(
      Promise.all(Array.from({ length: Math.min(options.openConcurrency, options.watchers) }, opener)),
      60_000,
      'opening the watches',
    );
    if (failure) throw failure;
    const openSeconds = (performance.now() - openedFrom) / 1000;

    let current: WatchedObject = initial;
    for (let update = 1; update <= options.updates; update++) {
      const marker = `bench-update-${String(update).padStart(6, '0')}`;
      if (failure) throw failure;
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
    return { openSeconds, last: summarize(last), each: summarize(each) };
  } finally {
    closing = true;
    for (const req of requests) req.destroy();
    agent.destroy();
    writer.destroy();
  }
}

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
