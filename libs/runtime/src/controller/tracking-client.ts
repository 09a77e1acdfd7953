import { Client, ResourceClient, type ClientConfig, type ClientOptions, type ObjectLike, type ResourceInfo, type TypedResource } from '@svc/client';
import type { ApiObject, KindDefinition } from '@svc/api';
import { namespacedNameKey } from '@svc/informers';
import { resourceId } from '../reconcile/resource-ref';
import type { WriteTracker } from './write-tracker';
import type { ReconcileWrite } from './reconcile-recorder';

const WRITE_VERBS = new Set(['create', 'update', 'updateStatus', 'updateSubresource', 'patch', 'patchStatus', 'apply', 'applyStatus', 'delete']);

/**
 * A Client whose resource clients report every write's resulting resourceVersion to a tracker.
 * A write made in a tracker scope (a reconcile) counts as in flight there until answered, and is
 * withdrawn when the scope's signal aborts before it is sent. Reads and watches are untouched.
 */
export class TrackingClient extends Client {
  constructor(
    config: ClientConfig,
    private readonly tracker: WriteTracker,
    options: ClientOptions = {},
  ) {
    super(config, { ...options, writeWithdrawal: () => tracker.current()?.signal });
  }

  override resource<T extends ObjectLike, I = T>(resource: TypedResource<T, I>): ResourceClient<T, I>;
  override resource<T extends ObjectLike = ApiObject>(resource: KindDefinition | ResourceInfo): ResourceClient<T>;
  override resource<T extends ObjectLike, I = T>(resource: TypedResource<T, I> | KindDefinition | ResourceInfo): ResourceClient<T, I> {
    return this.track(super.resource<T>(resource as KindDefinition | ResourceInfo) as unknown as ResourceClient<T, I>);
  }

  override dynamic(info: ResourceInfo): ResourceClient<ApiObject> {
    return this.track(super.dynamic(info));
  }

  override forKind<T extends ObjectLike = ApiObject>(apiVersion: string, kind: string): ResourceClient<T> {
    return this.track(super.forKind<T>(apiVersion, kind));
  }

  /** @internal the built-in accessors (`client.deployments`) come through here. */
  override builtin(name: Parameters<Client['builtin']>[0]): ResourceClient<ObjectLike> {
    return this.track(super.builtin(name));
  }

  private track<T extends ObjectLike, I = T>(inner: ResourceClient<T, I>): ResourceClient<T, I> {
    const tracker = this.tracker;
    const id = resourceId(inner.info);
    const wrap = <C extends ResourceClient<T, I>>(client: C): C =>
      new Proxy(client, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== 'function') return value;
          if (prop === 'inNamespace') {
            return (namespace: string) => wrap(target.inNamespace(namespace) as C);
          }
          if (typeof prop === 'string' && WRITE_VERBS.has(prop)) {
            return async (...args: unknown[]) => {
              const inFlight = tracker.current()?.inFlight;
              const pending = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
              if (inFlight) {
                inFlight.add(pending);
                const settled = () => inFlight.delete(pending);
                pending.then(settled, settled);
              }
              const result = (await pending) as ObjectLike | undefined;
              const made = tracker.current()?.made;
              if (made) made.push(writeOf(prop, inner.info, result));
              const meta = result?.metadata;
              if (meta?.name && meta.resourceVersion && (result as { kind?: string }).kind !== 'Status') {
                tracker.record(id, namespacedNameKey(meta.namespace, meta.name), meta.resourceVersion);
              }
              return result;
            };
          }
          return (value as (...a: unknown[]) => unknown).bind(target);
        },
      });
    return wrap(inner);
  }
}

/** A write as a reconcile record lists it: what the server answered (an object, or a deletion's Status). */
function writeOf(verb: string, info: ResourceInfo, result: ObjectLike | undefined): ReconcileWrite {
  const apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
  const answer: { kind?: string; details?: { name?: string; kind?: string } } | undefined = result;
  if (answer?.kind === 'Status') {
    return { verb, apiVersion, resource: info.resource, kind: info.kind ?? answer.details?.kind, name: answer.details?.name ?? '' };
  }
  const meta = result?.metadata;
  return {
    verb,
    apiVersion,
    resource: info.resource,
    ...(info.kind ? { kind: info.kind } : {}),
    ...(meta?.namespace ? { namespace: meta.namespace } : {}),
    name: meta?.name ?? '',
    ...(meta?.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}
