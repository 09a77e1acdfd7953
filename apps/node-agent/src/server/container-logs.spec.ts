import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
