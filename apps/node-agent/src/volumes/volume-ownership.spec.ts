import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownershipMatches, setVolumeOwnership } from './volume-ownership';

const isRoot = process.getuid?.() === 0;

(isRoot ? describe : describe.skip)('a volume given to the pod fsGroup', () => {
  let dir: string;
  let outside: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'node-volumes-ownership-spec-'));
    outside = join(dir, 'outside');
    writeFileSync(outside, 'host');
    mkdirSync(join(dir, 'v', 'sub'), { recursive: true });
    chmodSync(join(dir, 'v'), 0o755);
    chmodSync(join(dir, 'v', 'sub'), 0o700);
    writeFileSync(join(dir, 'v', 'sub', 'file'), 'x', { mode: 0o600 });
    symlinkSync(outside, join(dir, 'v', 'link'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gets the group, group read/write on files and setgid on directories; a link is changed itself, never its target', async () => {
    const outsideMode = statSync(outside).mode;
    await setVolumeOwnership(join(dir, 'v'), 4321, false, undefined);
    expect(statSync(join(dir, 'v')).gid).toBe(4321);
    expect(statSync(join(dir, 'v')).mode & 0o7777).toBe(0o2775);
    expect(statSync(join(dir, 'v', 'sub')).mode & 0o7777).toBe(0o2770);
    expect(statSync(join(dir, 'v', 'sub', 'file')).mode & 0o7777).toBe(0o660);
    expect(statSync(join(dir, 'v', 'sub', 'file')).gid).toBe(4321);
    expect(lstatSync(join(dir, 'v', 'link')).gid).toBe(4321);
    expect(statSync(outside).gid).toBe(0);
    expect(statSync(outside).mode).toBe(outsideMode);
    expect(await ownershipMatches(join(dir, 'v'), 4321, false)).toBe(true);
  });

  it('OnRootMismatch walks only when the root lacks the group or bits', async () => {
    await setVolumeOwnership(join(dir, 'v'), 4321, false, undefined);
    // A file changed since: Always fixes it, OnRootMismatch does not look below a root that is right.
    chmodSync(join(dir, 'v', 'sub', 'file'), 0o600);
    await setVolumeOwnership(join(dir, 'v'), 4321, false, 'OnRootMismatch');
    expect(statSync(join(dir, 'v', 'sub', 'file')).mode & 0o777).toBe(0o600);
    await setVolumeOwnership(join(dir, 'v'), 4321, false, 'Always');
    expect(statSync(join(dir, 'v', 'sub', 'file')).mode & 0o777).toBe(0o660);
    await setVolumeOwnership(join(dir, 'v'), 999, false, 'OnRootMismatch');
    expect(statSync(join(dir, 'v', 'sub', 'file')).gid).toBe(999);
  });
});
