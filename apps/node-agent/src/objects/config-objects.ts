import type { ConfigMap, Secret } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import { listerWatcherFor, SharedInformerFactory, silentInformerLogger, type SharedInformer } from '@svc/informers';

export type ConfigKind = 'configmaps' | 'secrets';

interface Watched {
  informer: SharedInformer<ConfigMap | Secret>;
  users: Set<string>;
}

/**
 * The ConfigMaps and Secrets the pods of this node use, each watched on its own (a field selector
 * on its name), as Kubernetes' `Watch` change detection strategy does: a pod never reads objects it
 * does not name, and a change reaches the volumes that show it at once.
 */
export class ConfigObjects {
  private readonly factory = new SharedInformerFactory({ logger: silentInformerLogger });
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly client: Client,
    /** Called with the users (pod uids) of an object that changed. */
    private readonly onChange: (users: readonly string[]) => void,
  ) {
    this.factory.start();
  }

  private key(kind: ConfigKind, namespace: string, name: string): string {
    return `${kind}/${namespace}/${name}`;
  }

  private watch(kind: ConfigKind, namespace: string, name: string): Watched {
    const key = this.key(kind, namespace, name);
    let entry = this.watched.get(key);
    if (entry) return entry;
    const resourceClient = kind === 'configmaps' ? this.client.resource(BUILTIN_RESOURCES.configMaps) : this.client.resource(BUILTIN_RESOURCES.secrets);
    const scope = { namespace, fieldSelector: `metadata.name=${name}` };
    const informer = this.factory.informerFor<ConfigMap | Secret>({ resource: `v1/${kind}`, ...scope }, () =>
      listerWatcherFor<ConfigMap | Secret>(resourceClient, scope),
    );
    const users = new Set<string>();
    entry = { informer, users };
    const notify = () => this.onChange([...users]);
    informer.addEventHandler({
      onAdd: (_o, info) => (info.isInInitialList ? undefined : notify()),
      onUpdate: (a, b) => (a === b ? undefined : notify()),
      onDelete: notify,
    });
    this.watched.set(key, entry);
    return entry;
  }

  /** The object, or undefined when it does not exist; `user` (a pod uid) is told of its changes from now on. */
  async get<T extends ConfigMap | Secret>(kind: ConfigKind, namespace: string, name: string, user: string): Promise<T | undefined> {
    const entry = this.watch(kind, namespace, name);
    entry.users.add(user);
    if (!(await entry.informer.whenSynced(30_000)))
      throw new Error(`cannot read ${kind} ${namespace}/${name}: ${entry.informer.lastError?.message ?? 'not synced'}`);
    return entry.informer.lister().get(`${namespace}/${name}`) as T | undefined;
  }

  /** Forgets a pod: objects no pod uses any more are no longer watched. */
  async release(user: string): Promise<void> {
    for (const [key, entry] of [...this.watched]) {
      entry.users.delete(user);
      if (entry.users.size === 0) {
        this.watched.delete(key);
        const [kind, namespace, name] = key.split('/');
        await this.factory.stopInformer({ resource: `v1/${kind}`, namespace, fieldSelector: `metadata.name=${name}` });
      }
    }
  }

  async stop(): Promise<void> {
    await this.factory.shutdown();
  }
}

/** The value of one key of a ConfigMap (data or binaryData) or Secret (base64 data), as bytes. */
export function configValue(kind: ConfigKind, object: ConfigMap | Secret, key: string): Buffer | undefined {
  if (kind === 'secrets') {
    const secret = object as Secret;
    const data = secret.data?.[key];
    return data === undefined ? undefined : Buffer.from(data, 'base64');
  }
  const configMap = object as ConfigMap;
  const text = configMap.data?.[key];
  if (text !== undefined) return Buffer.from(text, 'utf8');
  const binary = configMap.binaryData?.[key];
  return binary === undefined ? undefined : Buffer.from(binary, 'base64');
}

/** Every key of the object with its bytes. */
export function configEntries(kind: ConfigKind, object: ConfigMap | Secret): Array<[string, Buffer]> {
  const keys =
    kind === 'secrets'
      ? Object.keys((object as Secret).data ?? {})
      : [...Object.keys((object as ConfigMap).data ?? {}), ...Object.keys((object as ConfigMap).binaryData ?? {})];
  return keys.map((key) => [key, configValue(kind, object, key) ?? Buffer.alloc(0)]);
}
