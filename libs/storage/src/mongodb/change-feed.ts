import type { ChangeStream, ChangeStreamInsertDocument, ChangeStreamOptions, ClientSession, Collection, MongoClient, ResumeToken, Timestamp } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { StorageError } from '../storage-error';
import type { LogDocument, MetaDocument } from './documents';
import { metaValue } from './documents';

export interface ChangeFeedDeps {
  client: MongoClient;
  meta: Collection<MetaDocument>;
  log: Collection<LogDocument>;
  /** Fan-out of one change to the watchers; synchronous, called in revision order. */
  deliver: (row: LogDocument) => void;
  /** History the feed still had to deliver was compacted away: end every live watcher. */
  expire: (error: StorageError) => void;
  /** Check for changes the stream did not deliver within this period. */
  reconcileIntervalMs: number;
}

type InsertStream = ChangeStream<LogDocument, ChangeStreamInsertDocument<LogDocument>>;

/** Server errors after which a resume token is useless: ChangeStreamHistoryLost, ChangeStreamFatalError. */
const HISTORY_LOST_CODES = new Set([286, 280]);
const RESUME_ATTEMPTS = 3;
const FILL_BATCH = 1_000;

/**
 * The one change stream of a store (never one per watcher: each open stream holds a pooled
 * connection in a getMore, and many of them delay notifications, SERVER-32946). It follows inserts
 * into the log collection and hands every revision to `deliver` exactly once, in revision order, with
 * no gap:
 *
 * - `position` is the last revision delivered; an event at or below it is a duplicate and dropped;
 * - an event above `position + 1` means the stream skipped something (it should not, but a resume from
 *   a fresh point can), so the missing revisions are read from the log first: revisions have no gaps
 *   (the counter is incremented inside each write transaction), so "next revision" is well defined;
 * - after a lost connection the stream is reopened with the last resume token; if the token is no
 *   longer in the oplog, it is reopened at the current time and the log fills the difference;
 * - a timer compares `position` with the counter and fills from the log what the stream has not
 *   delivered for a whole period, so no revision waits for the next write to be seen.
 * Only history compacted before it was delivered can be lost; then every live watcher ends with
 * Expired and re-lists, as a client does after a 410.
 */
export class ChangeFeed {
  /** The last revision delivered. */
  position = 0;

  private stream: InsertStream | undefined;
  private resumeToken?: ResumeToken;
  private serial: Promise<unknown> = Promise.resolve();
  private closed = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private counterAtLastTick = 0;

  constructor(private readonly deps: ChangeFeedDeps) {}

  async start(): Promise<void> {
    const { revision, time } = await this.readCounter();
    this.position = revision;
    this.counterAtLastTick = revision;
    this.open(time === undefined ? {} : { startAtOperationTime: time });
    // Should the loop ever die, the reconcile timer still delivers everything from the log.
    this.run().catch(() => undefined);
    this.timer = setInterval(() => void this.serialize(() => this.reconcile()).catch(() => undefined), this.deps.reconcileIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    // A getMore in flight may hold the stream for up to its await time; the loop notices `closed`
    // when it returns (or fails once the client closes), so it is not waited for here.
    await this.stream?.close().catch(() => undefined);
  }

  private open(options: ChangeStreamOptions): void {
    this.stream = this.deps.log.watch<LogDocument, ChangeStreamInsertDocument<LogDocument>>([{ $match: { operationType: 'insert' } }], options);
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const stream = this.stream as InsertStream;
      try {
        const change = await stream.next();
        if (this.closed) return;
        await this.serialize(() => this.handle(change.fullDocument));
        this.resumeToken = change._id;
        this.failures = 0;
      } catch (error) {
        if (this.closed) return;
        this.failures += 1;
        await stream.close().catch(() => undefined);
        await sleep(Math.min(100 * 2 ** this.failures, 5_000));
        if (this.closed) return;
        await this.reopen(error);
      }
    }
  }

  private async reopen(error: unknown): Promise<void> {
    const historyLost = error instanceof MongoServerError && HISTORY_LOST_CODES.has(Number(error.code));
    if (this.resumeToken !== undefined && !historyLost && this.failures <= RESUME_ATTEMPTS) {
      this.open({ resumeAfter: this.resumeToken });
      return;
    }
    try {
      const { time } = await this.readCounter();
      this.resumeToken = undefined;
      this.open(time === undefined ? {} : { startAtOperationTime: time });
      // Whatever committed before the new starting point comes from the log.
      await this.serialize(() => this.reconcile(true));
    } catch {
      // The server is still away: the next loop turn fails again and retries after a longer pause.
      this.open(this.resumeToken === undefined ? {} : { resumeAfter: this.resumeToken });
    }
  }

  private async handle(row: LogDocument | undefined): Promise<void> {
    if (row === undefined || row._id <= this.position) return;
    if (row._id > this.position + 1) await this.fill(row._id - 1);
    if (row._id === this.position + 1) this.dispatch(row);
  }

  /**
   * Fills from the log what the counter shows but the stream has not delivered. Unless `now`, only
   * revisions already behind at the previous tick are filled, so that a stream merely a few
   * milliseconds behind is not raced by the log.
   */
  private async reconcile(now = false): Promise<void> {
    if (this.closed) return;
    const { revision } = await this.readCounter();
    const target = now ? revision : Math.min(revision, this.counterAtLastTick);
    this.counterAtLastTick = revision;
    if (target > this.position) await this.fill(target);
  }

  /** Delivers revisions (position, upTo] from the log. */
  private async fill(upTo: number): Promise<void> {
    while (this.position < upTo && !this.closed) {
      const from = this.position;
      const batch = await this.snapshot(async (session) => {
        const compaction = await this.deps.meta.findOne({ _id: 'compaction' }, { session });
        const rows = await this.deps.log.find({ _id: { $gt: from, $lte: upTo } }, { session, sort: { _id: 1 }, limit: FILL_BATCH }).toArray();
        return { compacted: metaValue(compaction, 0), rows };
      });
      const contiguous = batch.rows.every((row, index) => row._id === from + 1 + index);
      if (from < batch.compacted || !contiguous || batch.rows.length === 0) {
        this.position = upTo;
        this.deps.expire(new StorageError('Expired', `watch history from revision ${from} was compacted before it was delivered`));
        return;
      }
      for (const row of batch.rows) this.dispatch(row);
    }
  }

  private dispatch(row: LogDocument): void {
    this.position = row._id;
    this.deps.deliver(row);
  }

  /**
   * The counter and a cluster time from which a stream sees every later commit. The read runs in a
   * causally consistent session, whose operationTime is the time of the read; if that time is later
   * than the snapshot actually read, the revisions in between are found by the gap check or the
   * reconcile timer, so correctness never depends on it.
   */
  private async readCounter(): Promise<{ revision: number; time: Timestamp | undefined }> {
    const session = this.deps.client.startSession({ causalConsistency: true });
    try {
      const doc = await this.deps.meta.findOne({ _id: 'revision' }, { session, readConcern: { level: 'majority' } });
      return { revision: metaValue(doc, 1), time: session.operationTime };
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  private async snapshot<R>(read: (session: ClientSession) => Promise<R>): Promise<R> {
    const session = this.deps.client.startSession({ snapshot: true });
    try {
      return await read(session);
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  /** Stream events, gap fills and reconciles run one at a time, so delivery stays in order. */
  private serialize(step: () => Promise<void>): Promise<void> {
    const result = this.serial.then(step);
    this.serial = result.catch(() => undefined);
    return result;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
