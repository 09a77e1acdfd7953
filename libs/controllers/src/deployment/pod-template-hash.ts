import type { PodTemplateSpec } from '@svc/api';
import { POD_TEMPLATE_HASH_LABEL } from './deployment-keys';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits, continuing from `hash` (the offset basis for a fresh hash). */
export function fnv32a(data: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash >>> 0;
  for (const byte of data) {
    h ^= byte;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
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
 * The pod-template-hash of a Deployment's template, computed as Kubernetes' controller.ComputeHash:
 * FNV-32a of the template, then of `collisionCount` as 8 little-endian bytes when set, the decimal
 * sum safe-encoded. The template is hashed as canonical JSON (Kubernetes hashes its Go structure),
 * so the values differ from a Go cluster's for the same template; nothing compares them across.
 */
export function computePodTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = fnv32a(Buffer.from(canonicalJson(template), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
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

function withoutHashLabel(template: PodTemplateSpec | undefined): unknown {
  if (!template) return template;
  const labels = template.metadata?.labels;
  if (!labels || !(POD_TEMPLATE_HASH_LABEL in labels)) return template;
  const { [POD_TEMPLATE_HASH_LABEL]: _hash, ...rest } = labels;
  return { ...template, metadata: { ...template.metadata, labels: rest } };
}

/**
 * Kubernetes' EqualIgnoreHash: two templates are the same pod template when they are semantically
 * equal once the pod-template-hash label is taken out (a ReplicaSet's template carries it, the
 * Deployment's does not; `kubectl rollout undo` copies a ReplicaSet's template without it).
 */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return semanticEqual(withoutHashLabel(a), withoutHashLabel(b));
}
