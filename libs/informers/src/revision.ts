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
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === undefined || rb === undefined) return undefined;
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

/** Whether `seen` is at least `wanted`. Equal strings always are, even when they are not revisions. */
export function isRevisionAtLeast(seen: string | undefined, wanted: string): boolean {
  if (seen === wanted) return true;
  const c = compareRevisions(seen, wanted);
  return c !== undefined && c >= 0;
}
