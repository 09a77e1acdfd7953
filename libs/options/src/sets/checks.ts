import { isIP } from 'node:net';
import { formatDuration, type Millis } from '../flags/duration';
import type { CheckResult } from '../flag-set/flag';

/** Per-flag value checks shared by the option tables; each returns a reason or undefined. */

export const atLeast =
  (min: number) =>
  (value: number): CheckResult =>
    value >= min ? undefined : `must be greater than or equal to ${min}`;

export const greaterThan =
  (min: number) =>
  (value: number): CheckResult =>
    value > min ? undefined : `must be greater than ${min}`;

export const between =
  (min: number, max: number) =>
  (value: number): CheckResult =>
    value >= min && value <= max ? undefined : `must be between ${min} and ${max}, inclusive`;

export const durationAtLeast =
  (min: Millis) =>
  (value: Millis): CheckResult =>
    value >= min ? undefined : `must be greater than or equal to ${formatDuration(min)}`;

export const durationAbove =
  (min: Millis) =>
  (value: Millis): CheckResult =>
    value > min ? undefined : `must be greater than ${formatDuration(min)}`;

/** Applies `check` to each entry of a list and reports the first offending entry. */
export const eachEntry =
  (check: (entry: string) => string | undefined) =>
  (values: readonly string[]): CheckResult => {
    for (const entry of values) {
      const reason = check(entry);
      if (reason !== undefined) return { value: entry, reason };
    }
    return undefined;
  };

export const ipAddress = (value: string): CheckResult => (isIP(value) ? undefined : 'not a valid IP address');

/** Blank means all interfaces. */
export const ipAddressOrBlank = (value: string): CheckResult => (value === '' ? undefined : ipAddress(value));

/** An absolute URL with a scheme, such as `https://10.0.0.1:2379` or `mongodb://db:27017`. */
export function urlProblem(value: string): string | undefined {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/./.test(value)) return `${JSON.stringify(value)} is not a URL (scheme://host:port)`;
  try {
    new URL(value);
    return undefined;
  } catch {
    return `${JSON.stringify(value)} is not a URL (scheme://host:port)`;
  }
}

export const nonEmpty = (value: string): CheckResult => (value.trim() === '' ? 'must not be empty' : undefined);
