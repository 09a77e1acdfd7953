import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DockerEngine } from './docker-engine';

export const DEBOOTSTRAP = '/usr/sbin/debootstrap';
const MIRROR = 'http://deb.debian.org/debian';
const LABEL = 'io.svc.stand-in-node';

/**
 * Makes a stand-in for the official `node:20-bookworm-slim` image, which no registry serves here, and
 * imports it into the engine under `tag`: Debian bookworm from debootstrap (minbase, as the official slim
 * images are made), this machine's node binary, npm and headers laid out as the official image has them
 * (under /usr/local), its user `node` with uid 1000, and the certificate bundle and npm settings this
 * machine reaches the npm registry with. The root filesystem is built in `workDir` and removed after.
 * An image of that tag made from this same node (a label says which) is kept: returns false then.
 */
export async function importStandInNodeImage(engine: DockerEngine, workDir: string, tag: string): Promise<boolean> {
  const made = await engine.docker(['image', 'inspect', '--format', `{{index .Config.Labels "${LABEL}"}}`, tag]).catch(() => undefined);
  if (made?.stdout.trim() === process.version) return false;
  const rootfs = join(workDir, 'rootfs');
  try {
    await engine.run(DEBOOTSTRAP, ['--variant=minbase', 'bookworm', rootfs, MIRROR], { timeoutMs: 6 * 60_000 });
    rmSync(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
    mkdirSync(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });

    const prefix = dirname(dirname(process.execPath));
    const npmDir = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    const local = join(rootfs, 'usr/local');
    for (const sub of ['bin', 'include', 'lib/node_modules', 'etc']) mkdirSync(join(local, sub), { recursive: true });
    copyFileSync(process.execPath, join(local, 'bin/node'));
    cpSync(join(prefix, 'include/node'), join(local, 'include/node'), { recursive: true });
    cpSync(join(npmDir, 'npm'), join(local, 'lib/node_modules/npm'), { recursive: true, verbatimSymlinks: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));

    // The registry is reached here through a proxy whose certificate authority is in this machine's bundle.
    const cafile = execFileSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).trim();
    if (cafile && cafile !== 'null' && cafile !== 'undefined' && existsSync(cafile)) {
      mkdirSync(join(rootfs, dirname(cafile)), { recursive: true });
      copyFileSync(cafile, join(rootfs, cafile));
      writeFileSync(join(local, 'etc/npmrc'), `cafile=${cafile}\n`);
    }

    await engine.run('chroot', [rootfs, 'groupadd', '--gid', '1000', 'node']);
    await engine.run('chroot', [rootfs, 'useradd', '--uid', '1000', '--gid', 'node', '--shell', '/bin/bash', '--create-home', 'node']);
    const archive = join(workDir, 'rootfs.tar');
    await engine.run('tar', ['-C', rootfs, '-cf', archive, '.'], { timeoutMs: 5 * 60_000 });
    rmSync(rootfs, { recursive: true, force: true });
    await engine.docker(
      [
        'import',
        ...['--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        ...['--change', 'CMD ["node"]'],
        ...['--change', `LABEL ${LABEL}=${process.version}`],
        archive,
        tag,
      ],
      5 * 60_000,
    );
    rmSync(archive, { force: true });
    return true;
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
}
