import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './apiserver-process';

/**
 * Seeds a new project's package-lock.json with the repository's third-party packages, so that npm
 * installs them from its cache: without a lock file npm asks the registry for each package's list of
 * versions, which an offline install cannot, and a test must download nothing. The repository's lock
 * file names every third-party package a scaffolded project needs, at versions the cache holds; npm
 * keeps what the project uses and drops the rest, and the `@svc/*` packages resolve from the
 * project's own settings (its tarballs, or the registry it names for the scope).
 */
export function seedLockFile(dir: string): void {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
  const packages: Record<string, unknown> = { '': { name: pkg.name, version: pkg.version } };
  for (const [path, entry] of Object.entries(lock.packages)) if (path.startsWith('node_modules/')) packages[path] = entry;
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}
