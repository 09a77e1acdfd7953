import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findExecutable } from './host-executables';

/**
 * A Debian package and what shows it is installed: an absolute file, or a command looked up on PATH
 * (so that a narrowed PATH hides an installed one).
 */
export interface DebianPackage {
  name: string;
  provides: string;
}

const APT_TIMEOUT_MS = 10 * 60_000;

function isInstalled(pkg: DebianPackage): boolean {
  return pkg.provides.startsWith('/') ? existsSync(pkg.provides) : findExecutable(pkg.provides) !== undefined;
}

/** The packages of the list that are not installed. */
export function missingDebianPackages(packages: readonly DebianPackage[]): DebianPackage[] {
  return packages.filter((p) => !isInstalled(p));
}

export interface EnsureDebianPackagesOptions {
  /** Said before installing (one line), e.g. to the console. */
  onInstall?: (line: string) => void;
  /** Why they are wanted, for that line ("for the container runtime"). */
  purpose?: string;
}

/**
 * Installs the Debian packages that are missing, as root with apt-get (waiting for another apt-get
 * holding the lock, updating the package lists once if the install fails). Synchronous, so that a
 * caller can decide at once whether to go on. Returns one line saying why they cannot be had, naming
 * the command that installs them, or undefined when they are all there.
 */
export function ensureDebianPackages(packages: readonly DebianPackage[], options: EnsureDebianPackagesOptions = {}): string | undefined {
  const missing = missingDebianPackages(packages).map((p) => p.name);
  if (missing.length === 0) return undefined;
  const command = `apt-get install -y ${missing.join(' ')}`;
  const aptGet = findExecutable('apt-get');
  if (process.platform !== 'linux' || aptGet === undefined) return `${missing.join(', ')} missing and no apt-get to install them (Debian: "${command}")`;
  if (process.getuid?.() !== 0) return `${missing.join(', ')} missing; install them as root: "${command}"`;

  options.onInstall?.(`Installing ${missing.join(', ')}${options.purpose ? ` ${options.purpose}` : ''} with apt-get`);
  const apt = (args: string[]) =>
    spawnSync(aptGet, ['-o', 'DPkg::Lock::Timeout=600', ...args], {
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
  const still = missingDebianPackages(packages);
  return still.length ? `${command} installed no ${still.map((p) => p.provides).join(', ')}` : undefined;
}
