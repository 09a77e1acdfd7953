import { lstat, mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAtomically, type FileProjection } from './atomic-writer';

function payload(files: Record<string, string>, mode = 0o644): Map<string, FileProjection> {
  return new Map(Object.entries(files).map(([name, text]) => [name, { data: Buffer.from(text), mode }]));
}

describe('writeAtomically', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'atomic-writer-spec-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("lays files out as Kubernetes' AtomicWriter does: each top-level name a symlink through ..data to a timestamped directory", async () => {
    expect(await writeAtomically(dir, payload({ greeting: 'hello', 'nested/deep': 'x' }, 0o400))).toBe(true);
    expect((await lstat(join(dir, 'greeting'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, 'greeting'))).toBe('..data/greeting');
    expect(await readlink(join(dir, '..data'))).toMatch(/^\.\.\d/);
    expect(await readFile(join(dir, 'nested', 'deep'), 'utf8')).toBe('x');
    expect((await stat(join(dir, 'greeting'))).mode & 0o777).toBe(0o400);
  });

  it('changes nothing when the files are the same, and swaps ..data at once when they change, leaving no old files', async () => {
    await writeAtomically(dir, payload({ a: '1', b: '2' }));
    const first = await readlink(join(dir, '..data'));
    expect(await writeAtomically(dir, payload({ a: '1', b: '2' }))).toBe(false);
    expect(await writeAtomically(dir, payload({ a: '1', b: '2' }, 0o600))).toBe(true);
    expect(await writeAtomically(dir, payload({ a: 'one' }))).toBe(true);
    expect(await readlink(join(dir, '..data'))).not.toBe(first);
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('one');
    const entries = (await readdir(dir)).sort();
    expect(entries.filter((e) => !e.startsWith('..'))).toEqual(['a']);
    expect(entries.filter((e) => e.startsWith('..'))).toHaveLength(2);
  });

  it('refuses a path that leaves the directory', async () => {
    await expect(writeAtomically(dir, payload({ '../escape': 'x' }))).rejects.toThrow("must be relative and may not contain '..'");
    await expect(writeAtomically(dir, payload({ '/etc/passwd': 'x' }))).rejects.toThrow('must be relative');
  });
});
