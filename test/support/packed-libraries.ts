import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './apiserver-process';

const run = promisify(execFile);

/** Set by the global setup for one Jest run (a directory not yet made); the global teardown removes it. */
const SHARED_DIR_VARIABLE = 'SVC_TEST_PACKED_LIBRARIES_DIR';
const POLL_MS = 500;
const BUILD_TIMEOUT_MS = 10 * 60_000;

/**
 * The libraries built and packed by `scripts/build-packages.js --pack` (`packages/<lib>` and
 * `packs/*.tgz` under the returned directory), once per Jest run however many test files ask: the
 * first file to ask builds them, and a file asking meanwhile waits for that build instead of making a
 * second one. The files only read what is there. Without the global setup's directory, the call builds
 * into `fallbackDir`.
 */
export async function packedLibraries(fallbackDir: string): Promise<string> {
  const dir = process.env[SHARED_DIR_VARIABLE];
  if (!dir) {
    await build(fallbackDir);
    return fallbackDir;
  }
  const done = join(dir, 'done');
  const failed = join(dir, 'failed');
  try {
    mkdirSync(dir); // atomic: exactly one caller makes it, and builds
  } catch {
    const deadline = Date.now() + BUILD_TIMEOUT_MS;
    while (!existsSync(done)) {
      if (existsSync(failed)) throw new Error(`packing the libraries failed in another test file: ${readFileSync(failed, 'utf8')}`);
      if (Date.now() > deadline) throw new Error(`packing the libraries in another test file did not finish in ${BUILD_TIMEOUT_MS / 60_000} minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return dir;
  }
  try {
    await build(dir);
  } catch (error) {
    writeFileSync(failed, String(error));
    throw error;
  }
  writeFileSync(done, '');
  return dir;
}

async function build(out: string): Promise<void> {
  try {
    await run(process.execPath, [join(ROOT, 'scripts/build-packages.js'), '--pack', '--out', out], {
      cwd: ROOT,
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`build-packages.js --pack failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}
