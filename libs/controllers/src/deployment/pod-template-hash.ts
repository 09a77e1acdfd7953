import type { PodTemplateSpec } from '@svc/api';
import { canonicalJson, fnv32a, safeEncodeString, semanticEqual } from '../common/object-hash';
import { POD_TEMPLATE_HASH_LABEL } from './deployment-keys';

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
