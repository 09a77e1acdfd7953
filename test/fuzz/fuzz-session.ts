import { type ApiServerProcess, startApiServerProcess } from '../support/apiserver-process';
import { checkContent, decodeAnswer, judgeAnswer, watchEvents, type Violation } from './answer-oracle';
import { CUSTOM_GROUP, FIXTURE_CRD, Fixtures, type Snapshot } from './fixtures';
import { FuzzHttp, type Answer, type WireRequest } from './fuzz-http';
import type { FuzzInput } from './fuzz-input';
import { discoverModel, type FuzzModel } from './fuzz-model';
import { materialize } from './materialize';
import { ReadyzProbe } from './readyz-probe';

export interface SessionOptions {
  /** `--min-request-timeout` of the server: how long a watch without timeoutSeconds may live (up to twice this). */
  minRequestTimeoutSeconds: number;
  /** How long an ordinary request may go unanswered before it counts as a hang. */
  hangLimitMs: number;
  /** The longest `/readyz` may take while the fuzzer runs. */
  readyzLimitMs: number;
  /** Wait for each watch to end before the next input (replays); otherwise watches are followed in the background. */
  syncWatches: boolean;
  /** At most this many watches followed at once. */
  maxOpenWatches: number;
  log: (line: string) => void;
}

const MAX_LOST_FIXTURE_RESTARTS = 50;

/** A broken oracle, with the input and request that broke it. */
export interface Failure extends Violation {
  input: FuzzInput;
  /** Which run of the property (its fast-check path when nothing failed before it). */
  runIndex: number;
  /** Which send of the same input (inputs are sent several times). */
  attempt: number;
  wire?: WireRequest;
  answer?: { status: number; contentType: string; body: string; ms: number };
}

export interface SessionCounters {
  requests: number;
  restarts: number;
  /** Restarts made because a fixture could not be restored (not crashes). */
  lostFixtureRestarts: number;
  fixtureRestores: number;
  snapshots: number;
  watches: number;
  statuses: Map<number, number>;
  divergences: Map<string, { count: number; example: FuzzInput; runIndex: number }>;
}

function summariseAnswer(answer: Answer): Failure['answer'] {
  let body: string;
  try {
    body = decodeAnswer(answer).text;
  } catch {
    body = answer.body.toString('latin1');
  }
  return { status: answer.status, contentType: String(answer.headers['content-type'] ?? ''), body: body.slice(0, 1000), ms: answer.ms };
}

/**
 * The server under fuzz and everything kept beside it: the client, the fixtures and their last
 * snapshot, the `/readyz` probe, the watches still being followed. It restarts the server when it
 * died (the death itself is a failure of the input that caused it), so a run and its shrinking go on.
 */
export class FuzzSession {
  model!: FuzzModel;
  private server!: ApiServerProcess;
  private http!: FuzzHttp;
  private probe!: ReadyzProbe;
  private fixtures!: Fixtures;
  private snapshot: Snapshot | undefined;
  private snapshotRevision: string | undefined;
  private readonly openWatches = new Set<Promise<void>>();
  private earlierProbes = { count: 0, maxMs: 0, over1s: 0 };
  readonly lateFailures: Failure[] = [];
  readonly counters: SessionCounters = {
    requests: 0,
    restarts: 0,
    lostFixtureRestarts: 0,
    fixtureRestores: 0,
    snapshots: 0,
    watches: 0,
    statuses: new Map(),
    divergences: new Map(),
  };

  /** Sessions not stopped yet, so that a signal can take their servers down too. */
  private static readonly live = new Set<FuzzSession>();

  private constructor(private readonly options: SessionOptions) {}

  static async start(options: SessionOptions): Promise<FuzzSession> {
    const session = new FuzzSession(options);
    FuzzSession.live.add(session);
    try {
      await session.boot();
    } catch (error) {
      await session.stop();
      throw error;
    }
    return session;
  }

  /** Stops every live session's server (on SIGINT, or when the hard time limit passes). */
  static async stopAll(): Promise<void> {
    await Promise.all([...FuzzSession.live].map((session) => session.stop()));
  }

  get url(): string {
    return this.server.url;
  }

  get namespace(): string {
    return this.fixtures.namespace;
  }

  private async boot(): Promise<void> {
    this.server = await startApiServerProcess({ args: [`--min-request-timeout=${this.options.minRequestTimeoutSeconds}`] });
    this.http = new FuzzHttp(this.server.url, this.server.ca);
    // The fixture CRD first: its resource must be in discovery when the generators are built.
    const crd = await this.http.send(
      {
        method: 'POST',
        target: '/apis/apiextensions.svc.io/v1/customresourcedefinitions',
        headers: [['Content-Type', 'application/json']],
        body: Buffer.from(JSON.stringify(FIXTURE_CRD)),
      },
      30_000,
    );
    if (crd.status !== 201) throw new Error(`creating the fixture CRD: ${crd.status} ${crd.body.toString('utf8').slice(0, 500)}`);
    for (let i = 0; ; i++) {
      const served = await this.http.send({ method: 'GET', target: `/apis/${CUSTOM_GROUP}/v1`, headers: [] }, 30_000);
      if (served.status === 200) break;
      if (i > 200) throw new Error('the fixture CRD was not served within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const model = await discoverModel(this.http, [CUSTOM_GROUP]);
    // The generators are built once from the first server; a restarted one serves the same.
    if (this.model === undefined) this.model = model;
    this.fixtures = new Fixtures(() => this.http, this.model);
    await this.fixtures.restore(undefined, this.options.log);
    this.snapshot = undefined;
    this.snapshotRevision = undefined;
    this.probe = new ReadyzProbe(this.server.url, this.server.ca);
  }

  /** The server died: keep its last words for the report, then start a fresh one. */
  private async restart(): Promise<void> {
    this.options.log(`server exited (${JSON.stringify(this.server.exitStatus())}); starting a new one`);
    this.counters.restarts++;
    await this.teardown();
    await this.boot();
  }

  private dead(): boolean {
    return this.server.exitStatus() !== undefined;
  }

  /** After a request that got no answer: whether the process is gone (an abort can take a few seconds). */
  private async diedNow(): Promise<boolean> {
    for (let i = 0; i < 50; i++) {
      if (this.dead()) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  /** The snapshot matches the store now; fixtures lost to accepted requests are brought back. */
  private async freshSnapshot(): Promise<void> {
    const revision = await this.fixtures.revision();
    if (this.snapshot !== undefined && revision === this.snapshotRevision) return;
    let snapshot = await this.fixtures.snapshot();
    this.counters.snapshots++;
    if (!this.fixtures.complete(snapshot)) {
      this.counters.fixtureRestores++;
      await this.fixtures.restore(snapshot, this.options.log);
      if (this.fixtures.lost.size > 0 && this.counters.lostFixtureRestarts < MAX_LOST_FIXTURE_RESTARTS) {
        // A fixture that cannot come back (a CRD whose objects hold finalizers it no longer serves)
        // would leave its kind unfuzzed for the rest of the run: a fresh server brings it back.
        this.counters.lostFixtureRestarts++;
        this.options.log('restarting the server to get its lost fixtures back');
        await this.teardown();
        await this.boot();
        return this.freshSnapshot();
      }
      snapshot = await this.fixtures.snapshot();
    }
    this.snapshot = snapshot;
    this.snapshotRevision = await this.fixtures.revision();
  }

  /**
   * Sends one input `repeat` times and applies every oracle to every answer: the answer itself, the
   * fixtures after a refused request, the server process, and `/readyz` during the request.
   */
  async execute(input: FuzzInput, runIndex: number, repeat: number): Promise<Failure[]> {
    const failures: Failure[] = [];
    try {
      await this.sendAll(input, runIndex, repeat, failures);
    } catch (error) {
      const crashed = this.dead();
      failures.push({
        oracle: crashed ? 'crash' : 'harness',
        message: crashed
          ? `the server process exited (${JSON.stringify(this.server.exitStatus())}); its last output: ${this.server.stderr().slice(-1500)}`
          : `the harness could not go on: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        input,
        runIndex,
        attempt: 0,
      });
    }
    return failures;
  }

  private async sendAll(input: FuzzInput, runIndex: number, repeat: number, failures: Failure[]): Promise<void> {
    for (let attempt = 0; attempt < repeat; attempt++) {
      if (this.dead()) await this.restart();
      await this.freshSnapshot();
      const { wire, mustRefuse } = await materialize(input, { namespace: this.fixtures.namespace, revision: this.snapshotRevision ?? '0', http: this.http });
      const allMustRefuse = [...input.mustRefuse, ...mustRefuse];
      const fail = (violation: Violation, answer?: Answer) =>
        failures.push({ ...violation, input, runIndex, attempt, wire, ...(answer ? { answer: summariseAnswer(answer) } : {}) });
      const started = Date.now();
      this.counters.requests++;
      let answer: Answer;
      let streaming = false;
      if (input.watchDeadlineMs !== undefined) {
        this.counters.watches++;
        answer = await this.watch(input, wire, runIndex, attempt);
        streaming = answer.status >= 200 && answer.status < 300;
      } else {
        answer = await this.http.send(wire, this.options.hangLimitMs);
      }
      const ended = Date.now();
      this.counters.statuses.set(answer.status, (this.counters.statuses.get(answer.status) ?? 0) + 1);

      const { violations, divergences } = judgeAnswer(input, answer, {
        namespace: this.fixtures.namespace,
        mustRefuse: allMustRefuse,
        streaming,
        bodyBytes: wire.body?.length ?? 0,
      });
      for (const violation of violations) fail(violation, answer);
      for (const divergence of divergences) {
        const key = `${input.family}:${divergence}`;
        const known = this.counters.divergences.get(key);
        if (known) known.count++;
        else this.counters.divergences.set(key, { count: 1, example: input, runIndex });
      }

      if (answer.status === 0 || this.dead()) {
        if (await this.diedNow()) {
          const exit = this.server.exitStatus();
          fail(
            { oracle: 'crash', message: `the server process exited (${JSON.stringify(exit)}); its last output: ${this.server.stderr().slice(-1500)}` },
            answer,
          );
          continue;
        }
      }

      for (const slow of await this.probe.violations(started, ended, this.options.readyzLimitMs))
        fail({ oracle: 'readyz', message: `${slow} while this request ran (${ended - started} ms)` }, answer);

      const revision = await this.fixtures.revision().catch(() => undefined);
      if (revision === undefined) continue;
      const refused = answer.status >= 400 && answer.status < 500;
      if (revision !== this.snapshotRevision && this.snapshot !== undefined) {
        if (refused) {
          const after = await this.fixtures.snapshot();
          this.counters.snapshots++;
          const changes = Fixtures.diff(this.snapshot, after);
          if (changes.length > 0)
            fail({ oracle: 'refused-but-changed', message: `answered ${answer.status} yet changed fixtures: ${changes.join('; ')}` }, answer);
          this.snapshot = after;
          this.snapshotRevision = revision;
        } else {
          this.snapshot = undefined;
        }
      }
    }
  }

  /**
   * Opens a watch. A refused one is judged at once; an accepted one is followed until it ends, in
   * the background unless `syncWatches`, and must end by its deadline with well-formed events.
   */
  private async watch(input: FuzzInput, wire: WireRequest, runIndex: number, attempt: number): Promise<Answer> {
    const deadline = input.watchDeadlineMs ?? 0;
    const started = Date.now();
    const opened = await this.http.openWatch(wire, deadline);
    if (opened.status < 200 || opened.status >= 300) {
      const end = await opened.ended;
      return { status: opened.status, headers: opened.headers, body: end.body, ms: end.endedAt - started, ...(opened.error ? { error: opened.error } : {}) };
    }
    const follow = opened.ended.then((end) => {
      const problems: Violation[] = [];
      if (end.cutAtDeadline)
        problems.push({ oracle: 'watch-deadline', message: `the watch was still open ${deadline / 1000} s after it started (its timeoutSeconds plus 5 s)` });
      const contentType = String(opened.headers['content-type'] ?? '');
      if (contentType.startsWith('application/json')) {
        const { events, error } = watchEvents(end.body);
        if (error !== undefined) problems.push({ oracle: 'watch-stream', message: error });
        for (const event of events) {
          problems.push(...checkContent(event));
          const typed = event as { type?: unknown; object?: { kind?: unknown } };
          if (typed.type === 'ERROR' && typed.object?.kind !== 'Status')
            problems.push({ oracle: 'watch-stream', message: `an ERROR event without a Status: ${JSON.stringify(event).slice(0, 300)}` });
        }
      }
      for (const problem of problems) {
        this.lateFailures.push({
          ...problem,
          input,
          runIndex,
          attempt,
          wire,
          answer: { status: opened.status, contentType, body: end.body.toString('utf8').slice(0, 1000), ms: end.endedAt - started },
        });
      }
    });
    if (this.options.syncWatches) {
      await follow;
    } else {
      const tracked = follow.finally(() => this.openWatches.delete(tracked));
      this.openWatches.add(tracked);
      if (this.openWatches.size >= this.options.maxOpenWatches) await Promise.race(this.openWatches);
    }
    return opened;
  }

  /** Waits for the watches still open (each is bounded by its own deadline). */
  async drainWatches(): Promise<void> {
    await Promise.all([...this.openWatches]);
  }

  probeStats(): { count: number; maxMs: number; over1s: number } {
    const now = this.probe.stats();
    return {
      count: this.earlierProbes.count + now.count,
      maxMs: Math.max(this.earlierProbes.maxMs, now.maxMs),
      over1s: this.earlierProbes.over1s + now.over1s,
    };
  }

  serverOutput(): { stdout: string; stderr: string } {
    return { stdout: this.server.stdout(), stderr: this.server.stderr() };
  }

  private async teardown(): Promise<void> {
    if (this.probe !== undefined) {
      // Keep the figures of the probes of servers before a restart.
      const stats = this.probe.stats();
      this.earlierProbes = {
        count: this.earlierProbes.count + stats.count,
        maxMs: Math.max(this.earlierProbes.maxMs, stats.maxMs),
        over1s: this.earlierProbes.over1s + stats.over1s,
      };
    }
    await this.probe?.stop().catch(() => undefined);
    this.http?.close();
    await this.server?.stop();
  }

  async stop(): Promise<void> {
    FuzzSession.live.delete(this);
    await this.teardown();
  }
}
