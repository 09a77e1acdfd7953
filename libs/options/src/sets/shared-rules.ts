import type { GivenFlags, Problem } from '../flag-set/flag-set';

/** Cross-flag rules both processes use. */

/** Two flags that only make sense together (a certificate and its key). */
export function givenTogether(first: string, second: string) {
  return (_: unknown, given: GivenFlags): Problem | undefined => {
    if (given.has(first) && !given.has(second)) return { flag: first, reason: `--${second} must be given with --${first}` };
    if (given.has(second) && !given.has(first)) return { flag: second, reason: `--${first} must be given with --${second}` };
    return undefined;
  };
}
