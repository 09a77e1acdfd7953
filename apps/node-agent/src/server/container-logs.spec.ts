import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { containerLogBytesRead, streamContainerLog, type LogOptions } from './container-logs';

const T = '2026-01-01T00:00:00.000000000Z';

async function read(path: string, options: Partial<LogOptions>): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  await streamContainerLog(path, { follow: false, timestamps: false, ...options }, out, async () => false, new AbortController().signal);
  return text;
}

describe('streamContainerLog with tailLines', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'logs-spec-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('gives the last records, joining P lines, leaving out a line still being written', async () => {
    const path = join(dir, 'a.log');
    const lines = [`${T} stdout F one`, `${T} stdout P tw`, `${T} stderr P o-`, `${T} stdout F two`, `${T} stdout F three`, `${T} stdout P fo`];
    await writeFile(path, `${lines.join('\n')}\n${T} stdout F unfinish`);
    expect(await read(path, { tailLines: 1 })).toBe('three\n');
    expect(await read(path, { tailLines: 2 })).toBe('two-two\nthree\n');
    expect(await read(path, { tailLines: 3 })).toBe('one\ntwo-two\nthree\n');
    expect(await read(path, { tailLines: 10 })).toBe('one\ntwo-two\nthree\n');
    expect(await read(path, { tailLines: 0 })).toBe('');
    expect(await read(path, {})).toBe('one\ntwo-two\nthree\n');
  });

  it('reads records that span blocks, and only the end of a large file', async () => {
    const path = join(dir, 'b.log');
    const long = 'x'.repeat(100_000);
    const body: string[] = [];
    for (let i = 0; i < 2000; i++) body.push(`${T} stdout F line ${i} ${'y'.repeat(1000)}`);
    body.push(`${T} stdout P ${long}`, `${T} stdout F !`, `${T} stdout F last`);
    await writeFile(path, `${body.join('\n')}\n`);
    const before = (await containerLogBytesRead.get()).values[0]?.value ?? 0;
    expect(await read(path, { tailLines: 2 })).toBe(`${long}!\nlast\n`);
    const tailRead = ((await containerLogBytesRead.get()).values[0]?.value ?? 0) - before;
    expect(tailRead).toBeLessThan(400_000);
    const three = (await read(path, { tailLines: 3 })).split('\n');
    expect(three[0]).toBe(`line 1999 ${'y'.repeat(1000)}`);
  });
});

describe('streamContainerLog: since, limits, timestamps and following', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'logs-spec-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const at = (second: number) => `2026-01-01T00:00:0${second}.000000000Z`;

  it('gives lines since a time, with their times when asked, and stops at the byte limit within a line', async () => {
    const path = join(dir, 'since.log');
    await writeFile(path, `${at(1)} stdout F early\n${at(3)} stdout F later\n${at(5)} stderr F last\n`);
    expect(await read(path, { sinceTime: Date.parse(at(2)) })).toBe('later\nlast\n');
    expect(await read(path, { sinceTime: Date.parse(at(2)), timestamps: true })).toBe(`${at(3)} later\n${at(5)} last\n`);
    expect(await read(path, { limitBytes: 9 })).toBe('early\nlat');
    expect(await read(path, { tailLines: 2, limitBytes: 6 })).toBe('later\n');
  });

  it('says nothing for a file that is not there', async () => {
    expect(await read(join(dir, 'missing.log'), { follow: true })).toBe('');
  });

  it('follows new lines until the container has exited, then drains the file, across a rotation', async () => {
    const path = join(dir, 'follow.log');
    await writeFile(path, `${at(1)} stdout F one\n`);
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    let running = true;
    const done = streamContainerLog(path, { follow: true, timestamps: false }, out, async () => running, new AbortController().signal);
    const until = async (want: string) => {
      for (let i = 0; i < 100 && !text.includes(want); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(text).toContain(want);
    };
    await until('one\n');
    await appendFile(path, `${at(2)} stdout F two\n`);
    await until('two\n');
    // The runtime rotates: the file is renamed and a new one opened at the same path.
    await rename(path, `${path}.1`);
    await writeFile(path, `${at(3)} stdout F three\n`);
    await until('three\n');
    await appendFile(path, `${at(4)} stdout F four\n`);
    running = false;
    await done;
    expect(text).toBe('one\ntwo\nthree\nfour\n');
  });

  it('stops following when the client goes', async () => {
    const path = join(dir, 'abort.log');
    await writeFile(path, `${at(1)} stdout F one\n`);
    const abort = new AbortController();
    const done = streamContainerLog(path, { follow: true, timestamps: false }, new PassThrough(), async () => true, abort.signal);
    abort.abort();
    await expect(done).resolves.toBeUndefined();
  });
});
