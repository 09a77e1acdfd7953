import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../support/apiserver-process';
import { describeInput, formatFailure, formatSummary } from './fuzz-report';
import { runFuzz } from './fuzz-runner';
import { FuzzSession } from './fuzz-session';

const USAGE = `Usage: npm run fuzz -- [--count N] [--seed S] [--path P] [options]

Fuzzes a fresh svc-apiserver on a loopback port with generated requests and checks every answer.

  --count N         generated inputs to send (default 1000), after the known hostile ones
  --seed S          fast-check seed (default: random, printed)
  --path P          replay the input at this fast-check path (with --seed)
  --time-limit T    stop after T (seconds, or 90s, 20m; default 30m, or 150 ms per input when more)
  --repeat R        send each input R times (default 2)
  --keep-going      collect every distinct failure instead of stopping at the first
  --no-shrink       report the first failing input as generated, without shrinking it
  --no-examples     skip the known hostile inputs of issue 11
  --exclude PREFIX  do not send generated inputs whose family:label starts with PREFIX
                    (repeatable; e.g. hostile:json-patch-copy-amplification)
  --report FILE     also write the result as JSON
  --progress N      print a progress line every N inputs (default 500)
  --help`;

function duration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) throw new Error(`--time-limit: ${JSON.stringify(text)} is not a duration (600, 90s, 20m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1000;
  return Number(match[1]) * unit;
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`--${name}: ${JSON.stringify(text)} is not a positive integer`);
  return Number(text);
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        count: { type: 'string' },
        seed: { type: 'string' },
        path: { type: 'string' },
        'time-limit': { type: 'string' },
        repeat: { type: 'string' },
        'keep-going': { type: 'boolean' },
        'no-shrink': { type: 'boolean' },
        'no-examples': { type: 'boolean' },
        report: { type: 'string' },
        exclude: { type: 'string', multiple: true },
        progress: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let count: number;
  let repeat: number;
  let progress: number;
  let timeLimitMs: number;
  let seed: number | undefined;
  try {
    count = positiveInteger('count', args.count, 1000);
    repeat = positiveInteger('repeat', args.repeat, 2);
    progress = positiveInteger('progress', args.progress, 500);
    // Bounded by its count, with room for a loaded host: a long run is not cut short by the default.
    timeLimitMs = args['time-limit'] !== undefined ? duration(args['time-limit']) : Math.max(30 * 60_000, count * 150);
    if (args.seed !== undefined && !/^-?\d+$/.test(args.seed)) throw new Error(`--seed: ${JSON.stringify(args.seed)} is not an integer`);
    if (args.path !== undefined && !/^\d+(:\d+)*$/.test(args.path))
      throw new Error(`--path: ${JSON.stringify(args.path)} is not a fast-check path (like 12 or 12:3:0)`);
    if (args.path !== undefined && args.seed === undefined) throw new Error('--path needs the --seed it came from');
    seed = args.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(args.seed);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const exclude = args.exclude ?? [];
  const flags = `${args['no-examples'] ? ' --no-examples' : ''}${repeat !== 2 ? ` --repeat ${repeat}` : ''}${exclude.map((e) => ` --exclude ${e}`).join('')}`;
  const log = (line: string) => process.stderr.write(`[fuzz ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

  // The run stops itself at its time limit; this is the backstop should one step hang past it.
  const hardLimit = setTimeout(() => {
    log('hard time limit reached: stopping the server and exiting');
    void FuzzSession.stopAll().finally(() => process.exit(3));
  }, timeLimitMs + 180_000);
  hardLimit.unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the server`);
      void FuzzSession.stopAll().finally(() => process.exit(130));
    });
  }

  log(`seed ${seed}, ${count} inputs${args.path ? `, replaying path ${args.path}` : ''}, each sent ${repeat} times, time limit ${timeLimitMs / 1000} s`);
  const result = await runFuzz({
    count,
    seed,
    path: args.path,
    timeLimitMs,
    repeat,
    examples: !args['no-examples'],
    keepGoing: args['keep-going'] ?? false,
    shrink: !args['no-shrink'],
    log,
    progressEvery: progress,
    exclude,
  });
  clearTimeout(hardLimit);

  const out: string[] = ['', '== summary ==', formatSummary(result)];
  const reportOptions = { flags, repeat, reproductionDir: join(ROOT, 'reports', 'fuzz') };
  if (result.failures.length > 0) {
    out.push('', `== ${result.failures.length} distinct failure(s) ==`);
    result.failures.forEach((failure, i) => out.push(formatFailure(failure, i, result, reportOptions)));
  }
  if (result.counterexamplePath !== null && result.counterexample !== null) {
    out.push(
      '',
      '== smallest failing input (after shrinking) ==',
      describeInput(result.counterexample),
      `replay: npm run fuzz -- --seed ${result.seed} --path ${result.counterexamplePath}${flags}`,
    );
  }
  out.push('', `seed ${result.seed}: ${result.failures.length === 0 ? 'no failures' : `${result.failures.length} distinct failure(s)`}`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.report)
    writeFileSync(
      args.report,
      JSON.stringify(result, (_k, v: unknown) => (Buffer.isBuffer(v) ? `(${v.length} bytes)` : v), 2),
    );
  return result.failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`fuzz: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await FuzzSession.stopAll();
    process.exit(1);
  },
);
