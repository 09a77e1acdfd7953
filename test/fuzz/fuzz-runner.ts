import fc from 'fast-check';
import type { FuzzInput } from './fuzz-input';
import { FuzzSession, type Failure } from './fuzz-session';
import { knownInputs } from './known-inputs';
import { inputArbitrary } from './request-arbitrary';

export interface FuzzRunOptions {
  /** Generated inputs to send (the known hostile inputs come on top, when `examples` is set). */
  count: number;
  /** fast-check seed; random when absent. */
  seed?: number;
  /** fast-check path of one input to replay (with the same seed). */
  path?: string;
  /** The run stops itself after this long, however far it got. */
  timeLimitMs: number;
  /** How many times each input is sent. */
  repeat: number;
  /** Send the known hostile inputs of issue 11 first. */
  examples: boolean;
  /** Go on after a failure, collecting every distinct one (no shrinking); otherwise stop and shrink. */
  keepGoing: boolean;
  /** Shrink a failure to a smaller input (stop mode only). */
  shrink: boolean;
  syncWatches?: boolean;
  minRequestTimeoutSeconds?: number;
  hangLimitMs?: number;
  readyzLimitMs?: number;
  log?: (line: string) => void;
  /** Progress line every this many inputs (0: none). */
  progressEvery?: number;
  /**
   * Generated inputs whose `family:label` starts with one of these are not sent (for example
   * `hostile:json-patch-copy-amplification`, to look past a known defect that wedges the server).
   */
  exclude?: string[];
}

/** One kind of failure, with the first input that showed it and how often it came. */
export interface DistinctFailure {
  signature: string;
  count: number;
  first: Failure;
}

export interface FuzzRunResult {
  seed: number;
  /** The fast-check result: counterexample path when it failed and shrank. */
  counterexamplePath: string | null;
  counterexample: FuzzInput | null;
  numRuns: number;
  interrupted: boolean;
  elapsedMs: number;
  failures: DistinctFailure[];
  summary: RunSummary;
}

export interface RunSummary {
  inputs: number;
  requests: number;
  byFamily: Record<string, number>;
  byLabel: Record<string, number>;
  byStatus: Record<string, number>;
  byContentType: Record<string, number>;
  watches: number;
  restarts: number;
  lostFixtureRestarts: number;
  fixtureRestores: number;
  snapshots: number;
  readyz: { probes: number; maxMs: number; over1s: number };
  divergences: Array<{ divergence: string; count: number; runIndex: number; input: FuzzInput }>;
}

function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** Quoted values and numbers out of a message, so that one defect seen with many values is one failure. */
function shape(message: string): string {
  return message
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 120);
}

/**
 * Failures of one kind share a signature: the oracle, and what tells one defect from another for
 * it (the refused-for reason, the error message, the status), so a run lists each defect once.
 */
function signatureOf(failure: Failure): string {
  const status = failure.answer?.status ?? '-';
  const family = failure.input.family;
  switch (failure.oracle) {
    case 'must-refuse':
      return `must-refuse | ${shape(failure.message.replace(/^answered \d+ to a request that must be refused: /, '').split('; ')[0])} | ${family}`;
    case 'server-error':
    case 'unexpected-status':
      return `${failure.oracle} | ${status} | ${shape(failure.message)}`;
    case 'status-body':
      return `status-body | ${status} | ${failure.answer?.body === '' ? 'empty body' : (failure.answer?.contentType ?? '')}`;
    case 'lone-surrogate':
    case 'secret-stringData':
    case 'identity':
      return `${failure.oracle} | ${family}`;
    case 'readyz':
      return `readyz | ${family}:${failure.input.label.split(':')[0]}`;
    case 'watch-deadline':
      return `watch-deadline | ${failure.input.label.replace(/^[^:]*\/[^:]*:/, '')}`;
    default:
      return `${failure.oracle} | ${family}:${failure.input.label} | ${status}`;
  }
}

/**
 * One fuzz run: a fresh server, fixtures, generators built from its discovery, then fast-check
 * drives `count` inputs (plus the known ones) through the oracles. In stop mode the first failure
 * ends the run and is shrunk; the seed and path reproduce it. In keep-going mode every distinct
 * failure is collected with the path of its first input. Either way the run is bounded by
 * `timeLimitMs`, and the server, probe and temp directories are gone when it returns.
 */
export async function runFuzz(options: FuzzRunOptions): Promise<FuzzRunResult> {
  const log = options.log ?? (() => undefined);
  const minRequestTimeoutSeconds = options.minRequestTimeoutSeconds ?? 6;
  const started = Date.now();
  const session = await FuzzSession.start({
    minRequestTimeoutSeconds,
    hangLimitMs: options.hangLimitMs ?? 30_000,
    readyzLimitMs: options.readyzLimitMs ?? 1000,
    syncWatches: options.syncWatches ?? options.path !== undefined,
    maxOpenWatches: 12,
    log,
  });
  const distinct = new Map<string, DistinctFailure>();
  const byFamily: Record<string, number> = {};
  const byLabel: Record<string, number> = {};
  const byContentType: Record<string, number> = {};
  let inputs = 0;
  // In a replay the first input run is the one at the path.
  let runIndex = options.path !== undefined ? Number(options.path.split(':')[0]) : 0;
  const record = (failure: Failure) => {
    const signature = signatureOf(failure);
    const known = distinct.get(signature);
    if (known) known.count++;
    else {
      distinct.set(signature, { signature, count: 1, first: failure });
      log(`FAILURE #${distinct.size} [${signature}] at path ${failure.runIndex} (send ${failure.attempt + 1}): ${failure.message.slice(0, 500)}`);
    }
  };
  try {
    const exclude = options.exclude ?? [];
    const arbitrary = inputArbitrary(session.model, { minRequestTimeoutSeconds }).filter(
      (input) => !exclude.some((prefix) => `${input.family}:${input.label}`.startsWith(prefix)),
    );
    const examples = options.examples ? knownInputs(session.model, minRequestTimeoutSeconds).map((input): [FuzzInput] => [input]) : [];
    let lateSeen = 0;
    const property = fc.asyncProperty(arbitrary, async (input) => {
      const index = runIndex++;
      inputs++;
      bump(byFamily, input.family);
      bump(byLabel, `${input.family}:${input.label}`);
      const contentType = input.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1];
      if (contentType !== undefined)
        bump(byContentType, contentType.length > 80 ? `${contentType.slice(0, 40)}... (${contentType.length} chars)` : contentType);
      const failures = await session.execute(input, index, options.repeat);
      // Watches followed in the background report when they end: count them with the input then current.
      const late = session.lateFailures.slice(lateSeen);
      lateSeen = session.lateFailures.length;
      for (const failure of [...failures, ...late]) record(failure);
      if (options.progressEvery && inputs % options.progressEvery === 0) {
        log(`${inputs} inputs, ${session.counters.requests} requests, ${distinct.size} distinct failures, ${Math.round((Date.now() - started) / 1000)} s`);
      }
      if (!options.keepGoing && failures.length > 0) {
        throw new Error(failures.map((f) => `[${f.oracle}] ${f.message}`).join('\n'));
      }
    });
    const remaining = Math.max(1000, options.timeLimitMs - (Date.now() - started));
    const details = await fc.check(property, {
      // A replay sends the one input at the path (and shrinks it on failure), nothing after it.
      numRuns: options.path !== undefined ? 1 : options.count + examples.length,
      examples,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      endOnFailure: !options.shrink,
      interruptAfterTimeLimit: remaining,
      markInterruptAsFailure: false,
    });
    await session.drainWatches();
    for (const failure of session.lateFailures.slice(lateSeen)) record(failure);
    const stats = session.probeStats();
    return {
      seed: details.seed,
      counterexamplePath: details.counterexamplePath,
      counterexample: details.counterexample?.[0] ?? null,
      numRuns: details.numRuns,
      interrupted: details.interrupted,
      elapsedMs: Date.now() - started,
      failures: [...distinct.values()],
      summary: {
        inputs,
        requests: session.counters.requests,
        byFamily,
        byLabel,
        byStatus: Object.fromEntries([...session.counters.statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
        byContentType,
        watches: session.counters.watches,
        restarts: session.counters.restarts,
        lostFixtureRestarts: session.counters.lostFixtureRestarts,
        fixtureRestores: session.counters.fixtureRestores,
        snapshots: session.counters.snapshots,
        readyz: { probes: stats.count, maxMs: stats.maxMs, over1s: stats.over1s },
        divergences: [...session.counters.divergences].map(([divergence, d]) => ({ divergence, count: d.count, runIndex: d.runIndex, input: d.example })),
      },
    };
  } finally {
    await session.stop();
  }
}
