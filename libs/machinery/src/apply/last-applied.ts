import { JsonObject, JsonValue, isJsonObject } from '../patch';
import { ConflictSet } from './apply-conflict';
import { compareObjects } from './compare';
import { FieldSet } from './field-set';
import { goJson } from './go-json';
import { NodeType } from './schema-types';
import { toFieldSet } from './to-field-set';
import { FieldWalkError } from './walk-error';

/** The annotation `kubectl apply` (client-side) keeps the applied configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The field manager `kubectl apply --server-side` uses by default. Kubernetes upgrades an object from
 * client-side to server-side apply only for this manager; any other manager opts out.
 */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

/** The live object's last-applied configuration, or undefined when it has none or it is not an object. */
function lastAppliedOf(live: JsonObject): JsonObject | undefined {
  const annotations = isJsonObject(live.metadata) ? live.metadata.annotations : undefined;
  const text = isJsonObject(annotations) ? annotations[LAST_APPLIED_ANNOTATION] : undefined;
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const parsed = JSON.parse(text) as JsonValue;
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Kubernetes' lastAppliedManager: conflicts of `kubectl apply --server-side` with fields an earlier
 * client-side apply set are forgiven when the live object still holds what that apply set (the fields
 * of the last-applied configuration that the live object did not change since). Returns the conflicts
 * that remain; all of them when the object has no usable annotation.
 */
export function conflictsLeftByLastApplied(live: JsonObject, root: NodeType, conflicts: readonly ConflictSet[]): ConflictSet[] {
  const lastApplied = lastAppliedOf(live);
  if (lastApplied === undefined) return [...conflicts];
  let allowed: FieldSet;
  try {
    allowed = toFieldSet(lastApplied, root).difference(compareObjects(lastApplied, live, root).modified);
  } catch (error) {
    // An annotation that does not fit the schema forgives nothing, as Kubernetes' typed conversion fails.
    if (error instanceof FieldWalkError) return [...conflicts];
    throw error;
  }
  const left: ConflictSet[] = [];
  for (const conflict of conflicts) {
    const fields = conflict.fields.difference(allowed);
    if (!fields.isEmpty()) left.push({ ...conflict, fields });
  }
  return left;
}

/**
 * Kubernetes' lastAppliedUpdater: after `kubectl apply --server-side` to an object that carries the
 * client-side annotation, the annotation holds the configuration just applied (without the annotation
 * itself), encoded as Go encodes an unstructured object: keys sorted, HTML-safe, one trailing newline.
 */
export function updateLastApplied(merged: JsonObject, applied: JsonObject): void {
  const metadata = isJsonObject(merged.metadata) ? merged.metadata : undefined;
  const annotations = metadata && isJsonObject(metadata.annotations) ? metadata.annotations : undefined;
  if (annotations === undefined || typeof annotations[LAST_APPLIED_ANNOTATION] !== 'string') return;
  const config = structuredClone(applied);
  const configAnnotations = isJsonObject(config.metadata) ? config.metadata.annotations : undefined;
  if (isJsonObject(configAnnotations)) delete configAnnotations[LAST_APPLIED_ANNOTATION];
  annotations[LAST_APPLIED_ANNOTATION] = `${goJson(config)}\n`;
}
