import { FAMILIES } from './fuzz/fuzz-input';
import { formatFailure, formatSummary } from './fuzz/fuzz-report';
import { runFuzz, type FuzzRunResult } from './fuzz/fuzz-runner';
import { ROOT } from './support/apiserver-process';
import { join } from 'node:path';

// A short fuzz run against the real svc-apiserver process: the known hostile requests of issue 11,
// then generated ones of every family (bodies of every kind and content type, patches of every type,
// queries, paths, headers, watches), each sent twice, under every oracle (answer, fixtures, process,
// /readyz). `npm run fuzz -- --count N` runs a long one. FUZZ_SEED and FUZZ_COUNT change this one.

const SEED = Number(process.env.FUZZ_SEED ?? 20_251_125);
const COUNT = Number(process.env.FUZZ_COUNT ?? 150);

let result: FuzzRunResult;

beforeAll(async () => {
  result = await runFuzz({
    count: COUNT,
    seed: SEED,
    // About 15 s on a quiet machine; the bound leaves room for one loaded by other work.
    timeLimitMs: 100_000,
    repeat: 2,
    examples: true,
    keepGoing: true,
    shrink: false,
  });
}, 200_000);

function report(): string {
  const options = { flags: '', repeat: 2, reproductionDir: join(ROOT, 'reports', 'fuzz') };
  return [`seed ${result.seed}`, ...result.failures.map((failure, i) => formatFailure(failure, i, result, options)), formatSummary(result)].join('\n');
}

it('runs against the real server: every family of input is generated and sent, and the harness never breaks', () => {
  const harness = result.failures.filter((f) => f.first.oracle === 'harness');
  expect(harness.map((f) => f.first.message)).toEqual([]);
  // On a server that holds the event loop the run stops at its time limit: the count is met only when it does not.
  if (!result.interrupted) expect(result.summary.inputs).toBeGreaterThanOrEqual(COUNT);
  expect(Object.keys(result.summary.byFamily).sort()).toEqual(
    expect.arrayContaining(
      result.interrupted ? ['create', 'patch', 'path', 'hostile', 'list', 'watch'] : [...FAMILIES].filter((f) => f !== 'nonresource' && f !== 'headers'),
    ),
  );
});

it('finds no failure: every answer a 2xx, a 4xx Status or spec 1 504; no crash, hang, slow /readyz or touched fixture', () => {
  if (result.failures.length > 0 || result.interrupted) throw new Error(report());
});
