/**
 * Ordering of resourceVersions. The interface calls them opaque, but this product's server
 * numbers every write with one increasing counter per store (a decimal string), and read-your-writes
 * needs "at least as new as". A version that is not a decimal revision compares as unknown.
 */
export function revisionOf(resourceVersion: string | undefined): bigint | undefined {
  if (!resourceVersion || !/^[0-9]+$/.test(resourceVersion)) return undefined;
  return BigInt(resourceVersion);
}

/** Negative, zero or positive as `a` is older, equal or newer than `b`; undefined when either is not a revision. */
export function compareRevisions(a: string | undefined, b: string | undefined): number | undefined {
  // Compared as digit strings (no leading zeros: longer is larger, else by characters): the
  // reflector compares on every event, and a BigInt per side was a visible share of its time.
  if (!isDecimal(a) || !isDecimal(b)) return undefined;
  const x = withoutLeadingZeros(a);
  const y = withoutLeadingZeros(b);
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function isDecimal(version: string | undefined): version is string {
  if (!version) return false;
  for (let i = 0; i < version.length; i++) {
    const c = version.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function withoutLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

/** Whether `seen` is at least `wanted`. Equal strings always are, even when they are not revisions. */
export function isRevisionAtLeast(seen: string | undefined, wanted: string): boolean {
  if (seen === wanted) return true;
  const c = compareRevisions(seen, wanted);
  return c !== undefined && c >= 0;
}
