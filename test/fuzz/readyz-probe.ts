import { Worker } from 'node:worker_threads';

export interface ProbeSample {
  start: number;
  end: number;
  status: number;
  error?: string;
}

// Plain JavaScript run in a worker thread: the probe keeps its own event loop, so a busy fuzzer
// (building a 200 KB body, parsing a large answer) never delays it and never shows as server latency.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: workerData.ca });
let stopped = false;
parentPort.on('message', (message) => {
  // Messages on one port arrive in order: once this reply is read, every sample before it has been.
  if (message === 'sync') parentPort.postMessage({ type: 'synced' });
  if (message === 'stop') {
    stopped = true;
    agent.destroy();
    parentPort.close();
  }
});
function probe() {
  if (stopped) return;
  const start = Date.now();
  parentPort.postMessage({ type: 'start', start });
  let done = false;
  const finish = (status, error) => {
    if (done) return;
    done = true;
    parentPort.postMessage({ type: 'sample', sample: { start, end: Date.now(), status, error } });
    if (!stopped) setTimeout(probe, workerData.intervalMs);
  };
  const req = https.get(workerData.url + '/readyz', { agent, ca: workerData.ca }, (res) => {
    res.resume();
    res.on('end', () => finish(res.statusCode || 0));
    res.on('error', (e) => finish(0, e.message));
  });
  req.setTimeout(workerData.timeoutMs, () => req.destroy(new Error('no answer within ' + workerData.timeoutMs + ' ms')));
  req.on('error', (e) => finish(0, e.code || e.message));
}
probe();
`;

/**
 * Asks `/readyz` every `intervalMs` from a worker thread for as long as the run lasts, and tells for
 * any stretch of time whether an answer in it took longer than the limit, failed, or is still awaited
 * past the limit.
 */
export class ReadyzProbe {
  private readonly worker: Worker;
  private readonly samples: ProbeSample[] = [];
  private inFlightSince: number | undefined;
  private readonly totals = { count: 0, maxMs: 0, over1s: 0 };
  private readonly waiters = new Set<() => void>();
  private synced = 0;

  constructor(url: string, ca: string, intervalMs = 100, timeoutMs = 10_000) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url, ca, intervalMs, timeoutMs } });
    this.worker.unref();
    this.worker.on('message', (message: { type: string; start?: number; sample?: ProbeSample }) => {
      if (message.type === 'synced') this.synced++;
      else if (message.type === 'start') this.inFlightSince = message.start;
      else if (message.sample) {
        this.inFlightSince = undefined;
        this.samples.push(message.sample);
        const took = message.sample.end - message.sample.start;
        this.totals.count++;
        this.totals.maxMs = Math.max(this.totals.maxMs, took);
        if (took > 1000) this.totals.over1s++;
        if (this.samples.length > 2000) this.samples.splice(0, 1000);
      }
      for (const waiter of [...this.waiters]) waiter();
    });
  }

  /**
   * The probe answers that overlapped [from, to] and broke the limit. A probe still in flight is waited
   * for until it answers or the limit passes (then it counts as too slow).
   */
  async violations(from: number, to: number, limitMs: number): Promise<string[]> {
    // Read every sample the worker has sent before looking: when this thread was busy (parsing a large
    // answer), samples wait in the port, and a probe answered long ago would look unanswered.
    const target = this.synced + 1;
    this.worker.postMessage('sync');
    await this.waitUntil(() => this.synced >= target, 5_000);
    const since = this.inFlightSince;
    if (since !== undefined && since <= to) {
      await this.waitUntil(() => this.inFlightSince !== since, Math.max(0, since + limitMs + 50 - Date.now()));
    }
    const found: string[] = [];
    for (const s of this.samples) {
      if (s.end < from || s.start > to) continue;
      const took = s.end - s.start;
      if (s.error !== undefined) found.push(`/readyz failed after ${took} ms: ${s.error}`);
      else if (s.status !== 200) found.push(`/readyz answered ${s.status} after ${took} ms`);
      else if (took > limitMs) found.push(`/readyz took ${took} ms`);
    }
    if (this.inFlightSince === since && since !== undefined && since <= to) found.push(`/readyz unanswered after ${Date.now() - since} ms`);
    return found;
  }

  /** Answers and how long they took, for the summary. */
  stats(): { count: number; maxMs: number; over1s: number } {
    return { ...this.totals };
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await Promise.race([new Promise((resolve) => this.worker.once('exit', resolve)), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await this.worker.terminate();
  }

  private waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (done() || timeoutMs <= 0) return resolve();
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve();
      }, timeoutMs);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }
}
