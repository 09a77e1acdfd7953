import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** The directories searched for a command: PATH as given (a test hides a command by narrowing it), else Debian's default. */
function searchPath(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin').split(':').filter((dir) => dir !== '');
}

/** The absolute path of a command on PATH, or undefined. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/')) return isExecutable(name) ? name : undefined;
  for (const dir of searchPath(env)) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
