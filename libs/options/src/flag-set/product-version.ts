import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version of the root package.json. Found by walking up from this file so it works both from
 * `libs/options/src` (tests) and from `dist/libs/options/src` (compiled), where the relative depth differs.
 */
export function productVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg: unknown = JSON.parse(readFileSync(candidate, 'utf8'));
      if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') return pkg.version;
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}

/** `<program> v<version>`. */
export function versionText(program: string): string {
  return `${program} v${productVersion()}`;
}
