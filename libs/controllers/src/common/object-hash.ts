const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits, continuing from `hash` (the offset basis for a fresh hash): Go's fnv.New32a. */
export function fnv32a(data: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash >>> 0;
  for (const byte of data) {
    h ^= byte;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** FNV-1, 32 bits (multiply, then xor), continuing from `hash`: Go's fnv.New32. */
export function fnv32(data: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash >>> 0;
  for (const byte of data) {
    h = Math.imul(h, FNV32_PRIME) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h >>> 0;
}

// Consonants and digits only, so that no encoded string spells a word (Kubernetes' rand.SafeEncodeString).
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** Kubernetes' SafeEncodeString: each character replaced by the safe alphanumeric its code selects. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHANUMS[ch.codePointAt(0)! % SAFE_ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted at every level and undefined members dropped: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * Absent, null, empty lists and objects of only empty members are one value, as Kubernetes'
 * semantic equality has nil and empty alike (and an embedded struct of zero fields is its zero value).
 */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.values(value).every(isEmpty);
}

/** Kubernetes' semantic equality of API values: nil and empty alike, everything else compared deeply. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => semanticEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}
