import { decodePprof } from './pprof-encoding';
import { ProcessProfiler } from './process-profiler';

function busyLoop(ms: number): number {
  let x = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) x += Math.sqrt(x + 1);
  return x;
}

describe('ProcessProfiler', () => {
  let profiler: ProcessProfiler;
  beforeAll(() => (profiler = new ProcessProfiler()));
  afterAll(() => profiler.close());

  it('takes a CPU profile in pprof format naming the functions that ran', async () => {
    const answer = profiler.answer('/debug/pprof/profile', new URLSearchParams('seconds=1'));
    const spin = setInterval(() => busyLoop(20), 25);
    const result = await answer;
    clearInterval(spin);
    expect(result.status).toBe(200);
    const profile = decodePprof(result.body as Buffer) as { string_table: string[]; sample: unknown[]; sample_type: Array<{ type: number }> };
    expect(profile.sample_type.map((t) => profile.string_table[t.type])).toEqual(['samples', 'cpu']);
    expect(profile.string_table).toContain('busyLoop');
    expect(profile.sample.length).toBeGreaterThan(0);
  });

  it('refuses a second CPU profile while one runs, and durations out of range', async () => {
    const first = profiler.answer('/debug/pprof/profile', new URLSearchParams('seconds=1'));
    expect(await profiler.answer('/debug/pprof/profile', new URLSearchParams('seconds=1'))).toMatchObject({ status: 409 });
    await first;
    for (const seconds of ['0', '301', '1.5', 'abc'])
      expect(await profiler.answer('/debug/pprof/profile', new URLSearchParams({ seconds }))).toMatchObject({ status: 400 });
  });

  it('serves the sampled heap, the command line, an index, and 404 for other names', async () => {
    const kept = Array.from({ length: 2_000 }, (_, i) => ({ i, text: 'x'.repeat(1_000) }));
    const heap = await profiler.answer('/debug/pprof/heap', new URLSearchParams());
    expect(heap.status).toBe(200);
    const profile = decodePprof(heap.body as Buffer) as { string_table: string[]; sample_type: Array<{ type: number }> };
    expect(profile.sample_type.map((t) => profile.string_table[t.type])).toEqual(['inuse_objects', 'inuse_space']);
    expect(kept).toHaveLength(2_000);
    expect((await profiler.answer('/debug/pprof/cmdline', new URLSearchParams())).body).toBe(process.argv.join('\0'));
    expect(String((await profiler.answer('/debug/pprof/', new URLSearchParams())).body)).toContain('profile');
    expect(await profiler.answer('/debug/pprof/goroutine', new URLSearchParams())).toMatchObject({ status: 404 });
  });
});
