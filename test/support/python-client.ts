import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ensureDebianPackages, type DebianPackage } from '@svc/cri';

/** Debian's Python, which has Debian's packages (a Python earlier on PATH may not). */
const PYTHON = '/usr/bin/python3';
/** Debian's package of the official Python client, and the file that shows it is installed. */
export const PYTHON_CLIENT_PACKAGE: DebianPackage = { name: 'python3-kubernetes', provides: '/usr/lib/python3/dist-packages/kubernetes/__init__.py' };
const SCRIPTS = join(__dirname, 'python-client');

/** Why the official Python client cannot run here (installed from Debian when missing, as root), or undefined. */
export function pythonClientUnavailable(): string | undefined {
  return ensureDebianPackages([PYTHON_CLIENT_PACKAGE], { purpose: 'for the Python client tests' });
}

/** Runs a script of test/support/python-client with the client's environment and gives the JSON it prints. */
export function runPythonClient<T>(script: string, env: Record<string, string>, timeoutMs = 90_000): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [join(SCRIPTS, script)], { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}
