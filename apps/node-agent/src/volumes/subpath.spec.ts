import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerConfigError } from '../objects/container-config-error';
import { checkSubPath, expandSubPathExpr, pathWithinBase, prepareSubPath, safeMakeDir, subPathTarget } from './subpath';

const isRoot = process.getuid?.() === 0;

describe('subPath and subPathExpr', () => {
  let dir: string;
  let volume: string;
  let outside: string;
  const targets: string[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'node-volumes-subpath-spec-'));
    volume = join(dir, 'volume');
    outside = join(dir, 'outside');
    mkdirSync(join(volume, 'inside'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret'), 'host data');
    writeFileSync(join(volume, 'inside', 'file'), 'volume data');
    // Links that stay in the volume, and links that leave it (absolute and relative).
    symlinkSync(join(volume, 'inside'), join(volume, 'to-inside'));
    symlinkSync('inside', join(volume, 'relative-inside'));
    symlinkSync(outside, join(volume, 'to-outside'));
    symlinkSync('../outside', join(volume, 'relative-outside'));
    symlinkSync('/etc/passwd', join(volume, 'to-passwd'));
  });
  afterAll(() => {
    for (const target of targets) execFileSync('umount', ['-l', target], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('expands $(VAR) from the container environment, $$ escaping, and fails on a name with no value', () => {
    const env = new Map([
      ['POD_NAME', 'web-0'],
      ['EMPTY', ''],
    ]);
    expect(expandSubPathExpr('logs/$(POD_NAME)', env)).toBe('logs/web-0');
    expect(expandSubPathExpr('$$(POD_NAME)/x', env)).toBe('$(POD_NAME)/x');
    expect(() => expandSubPathExpr('$(NOPE)/$(EMPTY)', env)).toThrow(new ContainerConfigError('missing value for EMPTY, NOPE'));
  });

  it('refuses absolute subPaths and backsteps as the kubelet does', () => {
    expect(() => checkSubPath('/etc')).toThrow('error SubPath `/etc` must not be an absolute path');
    expect(() => checkSubPath('a/../../b')).toThrow("unable to provision SubPath `a/../../b`: must not contain '..'");
    expect(() => checkSubPath('a/..b/c')).not.toThrow();
  });

  it('knows what lies within a base', () => {
    expect(pathWithinBase('/v', '/v')).toBe(true);
    expect(pathWithinBase('/v/a/b', '/v')).toBe(true);
    expect(pathWithinBase('/v/..a', '/v')).toBe(true);
    expect(pathWithinBase('/vx', '/v')).toBe(false);
    expect(pathWithinBase('/', '/v')).toBe(false);
  });

  it('makes a missing subPath inside the volume with the given mode, but never through a link that leaves it', async () => {
    await safeMakeDir(volume, 'made/deep', 0o2775);
    expect(statSync(join(volume, 'made', 'deep')).isDirectory()).toBe(true);
    expect(statSync(join(volume, 'made', 'deep')).mode & 0o7777).toBe(0o2775);
    await safeMakeDir(volume, 'to-inside/through-link', 0o755);
    expect(existsSync(join(volume, 'inside', 'through-link'))).toBe(true);
    await expect(safeMakeDir(volume, 'to-outside/escaped', 0o755)).rejects.toThrow('outside of allowed base');
    await expect(safeMakeDir(volume, 'relative-outside/escaped', 0o755)).rejects.toThrow('outside of allowed base');
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    await expect(safeMakeDir(volume, 'inside/file/below', 0o755)).rejects.toThrow();
  });

  (isRoot ? it : it.skip)('bind-mounts a subPath inside the volume, following links that stay inside', async () => {
    const mount = { volumePath: volume, podDir: join(dir, 'pod'), volumeName: 'data', containerName: 'app' };
    const target = await prepareSubPath({ ...mount, subPath: 'relative-inside', mountIndex: 0 });
    targets.push(target);
    expect(target).toBe(subPathTarget({ ...mount, subPath: 'relative-inside', mountIndex: 0 }));
    expect(readFileSync(join(target, 'file'), 'utf8')).toBe('volume data');
    // Prepared again (a container restart): the same mount is kept.
    expect(await prepareSubPath({ ...mount, subPath: 'relative-inside', mountIndex: 0 })).toBe(target);
    const file = await prepareSubPath({ ...mount, subPath: 'inside/file', mountIndex: 1 });
    targets.push(file);
    expect(readFileSync(file, 'utf8')).toBe('volume data');
  });

  it('refuses a subPath whose links lead out of the volume, whatever their form', async () => {
    const mount = { volumePath: volume, podDir: join(dir, 'pod'), volumeName: 'data', containerName: 'app', mountIndex: 5 };
    for (const subPath of ['to-outside', 'relative-outside', 'to-passwd', 'to-outside/secret'])
      await expect(prepareSubPath({ ...mount, subPath })).rejects.toThrow('not within volume path');
    expect(existsSync(subPathTarget({ ...mount, subPath: '' }))).toBe(false);
  });
});
