import {
  AUTO_UPDATE_ANNOTATION,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
  type ApiObject,
} from '@svc/api';
import { isStatusError, jsonEqual } from '@svc/machinery';
import { SERVER_FIELD_MANAGER } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../registry/resource-registry';

interface Wanted {
  object: ApiObject;
  mandatory: boolean;
}

/**
 * Kubernetes' APF configuration ensurer: the mandatory objects always stand as shipped; a suggested
 * one is created when missing and kept as shipped while its `apf.kubernetes.io/autoupdate-spec`
 * annotation says "true". An object without the annotation is taken as the server's when nobody
 * changed it (generation 1) and as its user's otherwise, and the annotation is written to say so.
 * An object the server once shipped (annotation "true") that it ships no more is deleted.
 */
export async function ensureFlowcontrolConfiguration(registries: { flowSchemas: ResourceRegistry; priorityLevels: ResourceRegistry }): Promise<void> {
  // Levels first, so no schema is dangling for a moment on a new cluster.
  await ensureKind(registries.priorityLevels, [
    ...MANDATORY_PRIORITY_LEVELS.map((object) => ({ object: object, mandatory: true })),
    ...SUGGESTED_PRIORITY_LEVELS.map((object) => ({ object: object, mandatory: false })),
  ]);
  await ensureKind(registries.flowSchemas, [
    ...MANDATORY_FLOW_SCHEMAS.map((object) => ({ object: object, mandatory: true })),
    ...SUGGESTED_FLOW_SCHEMAS.map((object) => ({ object: object, mandatory: false })),
  ]);
}

async function ensureKind(registry: ResourceRegistry, wanted: readonly Wanted[]): Promise<void> {
  const existing = new Map((await registry.list('')).items.map((o) => [o.metadata?.name ?? '', o]));
  for (const { object, mandatory } of wanted) {
    const name = object.metadata?.name ?? '';
    const current = existing.get(name);
    if (current === undefined) {
      await ignoring(409, () => registry.create('', { value: structuredClone(object) }, { fieldManager: SERVER_FIELD_MANAGER }));
      continue;
    }
    const annotation = current.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION];
    const autoUpdate = mandatory || annotation === 'true' || (annotation === undefined && (current.metadata?.generation ?? 1) === 1);
    const wantedAnnotation = autoUpdate ? 'true' : 'false';
    if (autoUpdate ? annotation === 'true' && jsonEqual(current.spec, object.spec) : annotation === 'false') continue;
    const next = structuredClone<ApiObject>(current);
    next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [AUTO_UPDATE_ANNOTATION]: wantedAnnotation } };
    if (autoUpdate) next.spec = structuredClone(object.spec);
    await ignoring(409, () => registry.update('', name, { value: next }, { fieldManager: SERVER_FIELD_MANAGER }));
  }
  const shipped = new Set(wanted.map((w) => w.object.metadata?.name ?? ''));
  for (const [name, object] of existing) {
    if (shipped.has(name) || object.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] !== 'true') continue;
    await ignoring(404, () => registry.delete('', name, { preconditions: { uid: object.metadata?.uid } }));
  }
}

async function ignoring(code: number, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    // Another server wrote first (a conflict) or deleted first: its write is as good.
    if (!isStatusError(error) || (error.code !== code && error.code !== 409)) throw error;
  }
}
