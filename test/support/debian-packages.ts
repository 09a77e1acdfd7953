import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A Debian package and a file it installs, by which a test knows it is there. */
export interface DebianPackage {
  name: string;
  provides: string;
}

const APT_TIMEOUT_MS = 20 * 60_000;

/**
 * Installs the Debian packages a test needs when they are missing, as the README's test command promises
 * (root with apt-get). Synchronous, so a test file can decide at load time whether it runs or is skipped.
 * Returns why the packages cannot be had, or undefined when they are all installed.
 */
export function ensureDebianPackages(packages: readonly DebianPackage[]): string | undefined {
  const missing = packages.filter((p) => !existsSync(p.provides)).map((p) => p.name);
  if (missing.length === 0) return undefined;
  const command = `apt-get install ${missing.join(' ')}`;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) return `${missing.join(', ')} missing and no apt-get to install them`;
  if (process.getuid?.() !== 0) return `${missing.join(', ')} missing; install as root: ${command}`;

  const apt = (args: string[]) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      encoding: 'utf8',
      timeout: APT_TIMEOUT_MS,
    });
  const install = () => apt(['install', '-y', '--no-install-recommends', ...missing]);
  let result = install();
  if (result.status !== 0) {
    // A machine that never ran `apt-get update` has no package lists yet.
    apt(['update']);
    result = install();
  }
  if (result.status !== 0) return `${command} failed: ${(result.stderr || result.error?.message || '').trim().split('\n').slice(-3).join(' ')}`;
  const still = packages.filter((p) => !existsSync(p.provides));
  return still.length ? `${command} installed no ${still.map((p) => p.provides).join(', ')}` : undefined;
}
