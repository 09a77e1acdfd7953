import type { ResourceClient } from '@svc/client';
import { isConflict } from '@svc/machinery';
import { editable, type MetaObject } from './object-shape';

export interface UpdateStatusOptions {
  /** Attempts in all, the first included. Default 5 (client-go's DefaultRetry). */
  attempts?: number;
  fieldManager?: string;
  signal?: AbortSignal;
}

/**
 * Writes `mutate(obj)` to the status subresource; on a 409 Conflict reads the object again and
 * applies `mutate` to the fresh copy (client-go's RetryOnConflict). `mutate` gets an editable copy
 * and may change it in place or return a new object; it must be safe to call more than once.
 */
export async function updateStatusWithRetry<T extends MetaObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: (obj: T) => T | void,
  options: UpdateStatusOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const name = obj.metadata?.name;
  if (!name) throw new Error('the object has no metadata.name');
  const namespace = obj.metadata?.namespace;
  let current = obj;
  for (let attempt = 1; ; attempt++) {
    const copy = editable(current);
    const desired = mutate(copy) ?? copy;
    try {
      return await client.updateStatus(desired, { namespace, fieldManager: options.fieldManager, signal: options.signal });
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
      current = await client.get(name, { namespace, signal: options.signal });
    }
  }
}
