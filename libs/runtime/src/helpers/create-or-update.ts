import type { ResourceClient } from '@svc/client';
import { isNotFound, jsonEqual } from '@svc/machinery';
import { editable, type MetaObject } from './object-shape';

export type CreateOrUpdateOutcome = 'created' | 'updated' | 'unchanged';

export interface CreateOrUpdateOptions<T> {
  /**
   * The object as the caller already knows it (from the cache), saving the read: `null` when it
   * is known not to exist. Absent, the object is read from the server. A stale copy costs a
   * 409 Conflict (or 409 AlreadyExists), thrown for the reconcile to retry.
   */
  existing?: T | null;
  fieldManager?: string;
  signal?: AbortSignal;
}

/**
 * controller-runtime's CreateOrUpdate: reads the object named by `obj` (or takes `existing`), runs
 * `mutate` on an editable copy of it (of `obj` when there is none) and writes the result: a create
 * when it did not exist, an update when `mutate` changed anything, nothing at all otherwise. So a
 * reconcile that states what an owned object must hold writes only when it differs. `mutate`
 * changes the copy in place or returns a new object; it must set what it owns whatever it finds,
 * since it runs on the live object too. The update carries the read resourceVersion: a concurrent
 * change is a 409 thrown, never overwritten.
 */
export async function createOrUpdate<T extends MetaObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: (obj: T) => T | void,
  options: CreateOrUpdateOptions<T> = {},
): Promise<{ outcome: CreateOrUpdateOutcome; object: T }> {
  const name = obj.metadata?.name;
  if (!name) throw new Error('createOrUpdate needs metadata.name');
  const namespace = obj.metadata?.namespace ?? client.namespace;
  const write = { namespace, fieldManager: options.fieldManager, signal: options.signal };
  const current = options.existing !== undefined ? options.existing : await readOrNull(client, name, namespace, options.signal);
  if (current === null) {
    const fresh = editable(obj);
    const desired = mutate(fresh) ?? fresh;
    assertSameKey(desired, name, namespace);
    return { outcome: 'created', object: await client.create(desired, write) };
  }
  const copy = editable(current);
  const desired = mutate(copy) ?? copy;
  assertSameKey(desired, name, namespace);
  if (jsonEqual(desired, current)) return { outcome: 'unchanged', object: current };
  return { outcome: 'updated', object: await client.update(desired, write) };
}

async function readOrNull<T extends MetaObject>(
  client: ResourceClient<T>,
  name: string,
  namespace: string | undefined,
  signal?: AbortSignal,
): Promise<T | null> {
  try {
    return await client.get(name, { namespace, signal });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

function assertSameKey(obj: MetaObject, name: string, namespace: string | undefined): void {
  const ns = obj.metadata?.namespace;
  if (obj.metadata?.name !== name || (ns !== undefined && namespace !== undefined && ns !== namespace)) {
    throw new Error(`createOrUpdate: mutate must not change the object's name or namespace (${namespace ? `${namespace}/` : ''}${name})`);
  }
}
