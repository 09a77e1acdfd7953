import { resourceOfKey } from '../keys';
import type {
  CreateOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  ListOptions,
  ListResult,
  Storage,
  StorageDeleteOptions,
  StorageWatchEvent,
  StorageWatchOptions,
  StoredObject,
  TryUpdate,
  UpdateOptions,
  Watcher,
} from '../storage';
import { encodeObject } from '../stored-value';
import type { EncryptionConfig } from './encryption-config';
import { IDENTITY_PROVIDER, type ValueProvider } from './value-providers';

/** The field an encrypted object is stored under, beside the uid the store checks preconditions against. */
export const ENCRYPTED_FIELD = 'encryptedData';
const ENCRYPTED_PREFIX = 'k8s:enc:';

const STALE = Symbol('stored by another provider than the one that writes now');

/**
 * True for an object read from a value that the current configuration would write differently (another
 * key, or in the clear): an update that changes nothing must still write it, which is how Kubernetes
 * moves Secrets to a new key (`kubectl replace` of every Secret).
 */
export function needsRewrite(object: StoredObject): boolean {
  return (object as { [STALE]?: boolean })[STALE] === true;
}

interface Envelope extends StoredObject {
  [ENCRYPTED_FIELD]: string;
}

interface ResourceProviders {
  readonly writer: ValueProvider;
  readonly readers: readonly ValueProvider[];
}

/**
 * Encryption at rest below the registry, over any backend: objects of the configured resources are
 * written as `{metadata: {name, namespace, uid}, encryptedData: "k8s:enc:<provider>:v1:<key>:<base64>"}` by the first
 * provider of their rule and read by whichever provider's prefix the stored value carries, so a new key
 * listed first takes over writes while the old one still reads. Other resources pass through.
 */
export function encryptingStorage(
  inner: Storage,
  config: EncryptionConfig,
  storePrefix: string,
  /** The group of a built-in resource (its key does not name it); the core group when unset. */
  groupOf?: (resource: string) => string | undefined,
  /** Whether a group is built in, to read keys of the earlier layout (see resourceOfKey). */
  isBuiltInGroup?: (group: string) => boolean,
): Storage {
  const prefix = storePrefix.endsWith('/') ? storePrefix : `${storePrefix}/`;
  const byResource = new Map<string, ResourceProviders | undefined>();

  const providersFor = (key: string): ResourceProviders | undefined => {
    const of = resourceOfKey(key, prefix, groupOf, isBuiltInGroup);
    if (of === undefined) return undefined;
    const id = `${of.group}/${of.resource}`;
    if (!byResource.has(id)) {
      const rule = config.rules.find((r) => r.resources.some((pattern) => resourceMatches(pattern, of.group, of.resource)));
      byResource.set(id, rule && { writer: rule.providers[0], readers: rule.providers });
    }
    return byResource.get(id);
  };

  /** The key of a listed object, which the AEAD providers authenticate: a list item does not carry it. */
  const keyOf = (listPrefix: string, item: StoredObject): string => {
    const metadata = item.metadata as { name?: string; namespace?: string } | undefined;
    // A list of one namespace names it in its prefix; a list of the whole resource does not.
    const of = resourceOfKey(listPrefix, prefix, groupOf, isBuiltInGroup);
    const namespace = listPrefix !== of?.resourcePrefix || !metadata?.namespace ? '' : `${metadata.namespace}/`;
    return `${listPrefix}${namespace}${metadata?.name ?? ''}`;
  };

  const seal = <T extends StoredObject>(key: string, object: T): T => {
    const providers = providersFor(key);
    if (!providers || providers.writer === IDENTITY_PROVIDER) return object;
    const sealed = providers.writer.encrypt(Buffer.from(encodeObject(object)), key);
    // Name and namespace are in the key already; the uid is what the store checks preconditions against.
    const { name, namespace, uid } = (object.metadata ?? {}) as { name?: string; namespace?: string; uid?: string };
    const envelope: Envelope = {
      metadata: JSON.parse(JSON.stringify({ name, namespace, uid })) as StoredObject['metadata'],
      [ENCRYPTED_FIELD]: providers.writer.prefix + sealed.toString('base64'),
    };
    return envelope as StoredObject as T;
  };

  /** The plain object, and whether it was written by another provider than the one that writes now. */
  const open = <T extends StoredObject>(key: string, stored: T): { object: T; stale: boolean } => {
    const providers = providersFor(key);
    const text = (stored as Partial<Envelope>)[ENCRYPTED_FIELD];
    if (typeof text !== 'string' || !text.startsWith(ENCRYPTED_PREFIX)) {
      if (providers && !providers.readers.includes(IDENTITY_PROVIDER)) {
        throw new Error(`${key} is stored unencrypted and the identity provider is not configured for it`);
      }
      return { object: stored, stale: !!providers && providers.writer !== IDENTITY_PROVIDER };
    }
    const reader = (providers?.readers ?? []).find((p) => p.prefix !== '' && text.startsWith(p.prefix));
    if (!reader) throw new Error(`no configured encryption key matches the stored prefix of ${key}`);
    const plain = reader.decrypt(Buffer.from(text.slice(reader.prefix.length), 'base64'), key);
    const object = JSON.parse(plain.toString('utf8')) as T;
    const resourceVersion = stored.metadata?.resourceVersion;
    if (resourceVersion !== undefined) (object.metadata ??= {}).resourceVersion = resourceVersion;
    return { object, stale: reader !== providers?.writer };
  };
  const read = <T extends StoredObject>(key: string, stored: T): T => {
    const { object, stale } = open(key, stored);
    if (stale) Object.defineProperty(object, STALE, { value: true, enumerable: false });
    return object;
  };

  return {
    get backend() {
      return inner.backend;
    },
    create: async <T extends StoredObject>(key: string, object: T, options?: CreateOptions) => read(key, await inner.create(key, seal(key, object), options)),
    get: async <T extends StoredObject>(key: string, options?: GetOptions) => read(key, await inner.get<T>(key, options)),
    update: async <T extends StoredObject>(key: string, object: T, options?: UpdateOptions) => read(key, await inner.update(key, seal(key, object), options)),
    guaranteedUpdate: async <T extends StoredObject>(key: string, tryUpdate: TryUpdate<T>, options?: GuaranteedUpdateOptions) => {
      const result = await inner.guaranteedUpdate<T>(
        key,
        async (current) => {
          if (current === null) return seal(key, await tryUpdate(null));
          const { object, stale } = open(key, current);
          const next = await tryUpdate(object);
          // An unchanged object is not rewritten, unless it is stored under an older key or in the clear.
          if (!stale && encodeObject(next) === encodeObject(object)) return current;
          return seal(key, next);
        },
        options,
      );
      return read(key, result);
    },
    delete: async <T extends StoredObject>(key: string, options?: StorageDeleteOptions<T>) => {
      const validate = options?.validate;
      const deleted = await inner.delete<T>(key, validate ? { ...options, validate: (current) => validate(read(key, current)) } : options);
      return read(key, deleted);
    },
    list: async <T extends StoredObject>(listPrefix: string, options?: ListOptions): Promise<ListResult<T>> => {
      const result = await inner.list<T>(listPrefix, options);
      return { ...result, items: result.items.map((item) => read(keyOf(listPrefix, item), item)) };
    },
    count: (countPrefix) => inner.count(countPrefix),
    watch: async <T extends StoredObject>(watchPrefix: string, options?: StorageWatchOptions) =>
      decryptingWatcher(await inner.watch<T>(watchPrefix, options), read),
    currentRevision: (keyPrefix) => inner.currentRevision(keyPrefix),
    compactedRevision: (keyPrefix) => inner.compactedRevision(keyPrefix),
    compact: (revision) => inner.compact(revision),
    healthCheck: (timeoutMs) => inner.healthCheck(timeoutMs),
    stats: () => inner.stats(),
    close: () => inner.close(),
  };
}

function decryptingWatcher<T extends StoredObject>(inner: Watcher<T>, read: <U extends StoredObject>(key: string, stored: U) => U): Watcher<T> {
  return {
    stop: () => inner.stop(),
    requestProgress: () => inner.requestProgress(),
    ended: inner.ended,
    async *[Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent<T>> {
      for await (const event of inner) {
        if (event.type === 'PROGRESS') {
          yield event;
          continue;
        }
        yield {
          ...event,
          object: read(event.key, event.object),
          prevObject: event.prevObject && read(event.key, event.prevObject),
        };
      }
    },
  };
}

/** `secrets`, `deployments.apps`, `*.apps`, `*.` (the core group) or `*.*`; `k8s.io` and `svc.io` groups alike. */
export function resourceMatches(pattern: string, group: string, resource: string): boolean {
  const dot = pattern.indexOf('.');
  const patternResource = dot < 0 ? pattern : pattern.slice(0, dot);
  const patternGroup = dot < 0 ? '' : pattern.slice(dot + 1);
  if (patternResource !== '*' && patternResource !== resource) return false;
  if (patternGroup === '*') return true;
  return canonicalGroup(patternGroup) === canonicalGroup(group);
}

function canonicalGroup(group: string): string {
  return group.endsWith('.svc.io') ? `${group.slice(0, -'.svc.io'.length)}.k8s.io` : group;
}
