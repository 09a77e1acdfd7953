import { api, ApiError } from './client';
import { objectPath, resourceForKind, type DiscoveredResource } from './discovery';
import type { WireObject } from './watch';

/** The field manager of everything applied from the console. */
export const FIELD_MANAGER = 'svc-console';

/** One field another manager owns, as a 409 of server-side apply names it. */
export interface ApplyConflict {
  field?: string;
  message?: string;
}

export class ApplyConflictError extends Error {
  constructor(
    readonly conflicts: ApplyConflict[],
    readonly apiError: ApiError,
  ) {
    super(apiError.message);
  }
}

/**
 * YAML of an object as a user edits it: without what the server keeps (managed fields, which apply
 * refuses; status; its identity and version, so that a controller's status write meanwhile is no
 * conflict: apply settles who owns which field).
 */
export async function editableYaml(object: WireObject): Promise<string> {
  // The YAML library loads with the first editor opened, not with the console.
  const { stringify } = await import('yaml');
  const copy = structuredClone(object) as WireObject & { status?: unknown };
  for (const key of ['managedFields', 'resourceVersion', 'uid', 'creationTimestamp', 'generation'] as const) delete copy.metadata[key];
  delete copy.status;
  return stringify(copy, { lineWidth: 0 });
}

/**
 * Applies a YAML document server-side (`application/apply-patch+yaml`) as the console's field
 * manager. A conflict with another manager's fields is thrown as ApplyConflictError with the fields,
 * unless `force` takes them over.
 */
export async function applyYaml(resources: DiscoveredResource[], text: string, options: { force?: boolean; namespace?: string } = {}): Promise<WireObject> {
  const { parse } = await import('yaml');
  let doc: WireObject;
  try {
    doc = parse(text, { maxAliasCount: 50 }) as WireObject;
  } catch (error) {
    throw new Error(`The YAML does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!doc || typeof doc !== 'object' || !doc.apiVersion || !doc.kind || !doc.metadata?.name) {
    throw new Error('The document needs apiVersion, kind and metadata.name.');
  }
  const resource = resourceForKind(resources, doc.apiVersion, doc.kind);
  if (!resource) throw new Error(`This server serves no ${doc.kind} in ${doc.apiVersion}.`);
  const namespace = resource.namespaced ? doc.metadata.namespace || options.namespace || 'default' : undefined;
  const query = new URLSearchParams({ fieldManager: FIELD_MANAGER });
  if (options.force) query.set('force', 'true');
  try {
    return await api<WireObject>(`${objectPath(resource, namespace, doc.metadata.name)}?${query.toString()}`, {
      method: 'PATCH',
      body: text,
      contentType: 'application/apply-patch+yaml',
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 409 && (error.status.details?.causes?.length ?? 0) > 0) {
      throw new ApplyConflictError(
        error.status.details!.causes!.map((c) => ({ field: c.field, message: c.message })),
        error,
      );
    }
    throw error;
  }
}
