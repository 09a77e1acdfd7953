import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The environment for an `npm install` of a project outside the repository that depends on
 * better-sqlite3: its install script (prebuild-install) finds the binding in `dir` through
 * prebuild-install's documented local-prebuilds option instead of compiling it with node-gyp for a
 * minute of CPU. The prebuild is made from the binding the repository's own install compiled, the same
 * package version for the same Node ABI, platform and architecture, so the project gets the binary it
 * would have built. What the tests check is our packages, not better-sqlite3's build.
 */
export async function localPrebuildsEnv(dir: string): Promise<Record<string, string>> {
  const packageJson = require.resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const tarball = join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  mkdirSync(dir, { recursive: true });
  await run('tar', ['-czf', tarball, '-C', dirname(packageJson), 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}
