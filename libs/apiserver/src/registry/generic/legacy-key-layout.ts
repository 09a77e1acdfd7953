import { storedDefinition, type Scheme } from '@svc/api';
import { isStorageError, legacyPrefixKey, objectStorageKey, prefixKey, type Storage, type StoredObject } from '@svc/storage';

const PAGE = 500;

interface Moved {
  /** Objects written under their new key. */
  moved: number;
  /** Objects already under their new key (another server moved them first), whose old key is dropped. */
  present: number;
}

/**
 * Moves the built-in resources' objects from the key layout of earlier versions
 * (`<prefix>/<group, or "core">/<resource>/...`) to Kubernetes' (`<prefix>/pods/...`, see `prefixKey`),
 * so that a store written by an earlier version keeps its objects after an upgrade. Custom resources
 * were already under `<group>/<resource>` and stay. Runs before any cache reads the store; an empty store
 * costs one short list per built-in resource. Each object is created under its new key (keeping its uid
 * and everything else but its resourceVersion, which the store gives) and then deleted under the old one,
 * so several API servers starting at once each move what the other has not, and none is lost: a create
 * that finds the new key taken leaves the newer object there. Values go through `storage` (encryption at
 * rest included), so an encrypted value is sealed again for its new key.
 */
export async function moveLegacyKeys(storage: Storage, storePrefix: string, scheme: Scheme): Promise<Moved> {
  const result: Moved = { moved: 0, present: 0 };
  const seen = new Set<string>();
  for (const definition of scheme.all()) {
    if (definition.source.type !== 'builtin') continue;
    const aliased = storedDefinition(definition);
    const stored = aliased.storedAs?.definition ?? aliased;
    const from = legacyPrefixKey({ prefix: storePrefix, group: stored.group, resource: stored.resource });
    const to = prefixKey({ prefix: storePrefix, group: stored.group, resource: stored.resource, builtIn: true });
    if (from === to || seen.has(from)) continue;
    seen.add(from);
    await moveResource(
      storage,
      from,
      (object) => {
        const { name, namespace } = (object.metadata ?? {}) as { name?: string; namespace?: string };
        if (!name) return undefined;
        const parts = { prefix: storePrefix, group: stored.group, resource: stored.resource, builtIn: true, name };
        return {
          key: objectStorageKey({ ...parts, namespace: definition.namespaced ? namespace : undefined }),
          from: `${from}${definition.namespaced && namespace ? `${namespace}/` : ''}${name}`,
        };
      },
      result,
    );
  }
  return result;
}

async function moveResource(
  storage: Storage,
  from: string,
  keysOf: (object: StoredObject) => { key: string; from: string } | undefined,
  result: Moved,
): Promise<void> {
  // Each page is read afresh from the start: the objects of the last page are gone by then.
  for (;;) {
    const page = await storage.list<StoredObject>(from, { limit: PAGE });
    let progressed = false;
    for (const object of page.items) {
      const keys = keysOf(object);
      if (keys === undefined) continue;
      const { resourceVersion, ...metadata } = object.metadata ?? {};
      try {
        await storage.create(keys.key, { ...object, metadata });
        result.moved += 1;
      } catch (error) {
        if (!isStorageError(error, 'KeyExists')) throw error;
        result.present += 1;
      }
      try {
        await storage.delete(keys.from, { preconditions: { resourceVersion } });
        progressed = true;
      } catch (error) {
        // Another server moved or deleted it meanwhile.
        if (!isStorageError(error, 'KeyNotFound') && !isStorageError(error, 'Conflict')) throw error;
        progressed = true;
      }
    }
    if (page.continue === undefined || !progressed) return;
  }
}
