import { fieldErrorMessage, fieldInvalid } from './field-errors';
import { goQuote } from './go-quote';
import { newBadRequest } from './status-errors';

/**
 * Parses a resourceVersion: a decimal revision of the store. The empty string and `0` both mean
 * "no particular revision" and give 0. Anything else that is not a non-negative integer up to
 * 2^53-1 is a 400 BadRequest carrying Kubernetes' text
 * (`resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`).
 */
export function parseResourceVersion(resourceVersion: string): number {
  if (resourceVersion === '' || resourceVersion === '0') return 0;
  let problem: string | undefined;
  if (!/^[0-9]+$/.test(resourceVersion)) problem = 'invalid syntax';
  else if (!Number.isSafeInteger(Number(resourceVersion))) problem = 'value out of range';
  if (problem) {
    const detail = `strconv.ParseUint: parsing ${goQuote(resourceVersion)}: ${problem}`;
    throw newBadRequest(fieldErrorMessage(fieldInvalid('resourceVersion', resourceVersion, detail)));
  }
  return Number(resourceVersion);
}

/** The string form of a revision. */
export function formatResourceVersion(revision: number): string {
  return String(revision);
}

/** Orders two resourceVersions by revision: negative, zero or positive. Throws like parseResourceVersion. */
export function compareResourceVersions(a: string, b: string): number {
  return Math.sign(parseResourceVersion(a) - parseResourceVersion(b));
}
