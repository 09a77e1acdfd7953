import { builtinScheme, type ApiObject, type KindDefinition, type Scheme } from '@svc/api';
import { failureStatus, StatusError, StatusReasons } from '@svc/machinery';
import { BUILTIN_RESOURCES, type BuiltinResources, type ObjectOf, type TypedResource } from './builtin-resources';
import type { ClientConfig } from './client-config';
import type { Clock } from './clock';
import { discoverServedResources, type ServedResource } from './discovery';
import { clientConfigFromOptions, type ClientConnectionOptions } from './load-client-config';
import { ResourceClient, type ObjectLike } from './resource-client';
import { resourceInfo, type ResourceInfo } from './resource-info';
import { RestClient } from './rest-client';

export interface ClientOptions {
  /** Where `forKind` looks kinds up; the built-in scheme by default. Register CRD kinds in it to reach them by kind. */
  scheme?: Scheme;
  /** Time source of rate limiting and retry waits. */
  clock?: Clock;
  /** See `RestClientOptions.writeWithdrawal`; used only when the client makes its own RestClient. */
  writeWithdrawal?: () => AbortSignal | undefined;
}

/** One ResourceClient per built-in kind, typed by its object type. */
export type BuiltinClients = { readonly [K in keyof BuiltinResources]: ResourceClient<ObjectOf<BuiltinResources[K]>> };

function isTypedResource(value: unknown): value is TypedResource<unknown> {
  return typeof value === 'object' && value !== null && 'info' in value;
}

function noKindMatch(apiVersion: string, kind: string): StatusError {
  return new StatusError(
    failureStatus(404, StatusReasons.NotFound, `no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`, { kind }),
  );
}

/**
 * The typed facade over one API server: `client.pods`, `client.deployments`, ... for the
 * built-in kinds, `resource(definition)` for any KindDefinition, `forKind(apiVersion, kind)`
 * through the scheme, and `dynamic(info)` for a resource known only by group, version and plural.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the interface below adds the built-in clients the constructor defines
export class Client {
  readonly rest: RestClient;
  readonly scheme: Scheme;
  private readonly builtins = new Map<string, ResourceClient<ObjectLike>>();

  constructor(config: ClientConfig | RestClient, options: ClientOptions = {}) {
    this.rest = config instanceof RestClient ? config : new RestClient(config, { clock: options.clock, writeWithdrawal: options.writeWithdrawal });
    this.scheme = options.scheme ?? builtinScheme();
  }

  /** A client for the API server named by a process's connection flags (`--svcconfig`, `--master`, `--svc-api-*`). */
  static async fromOptions(options: ClientConnectionOptions, clientOptions: ClientOptions = {}): Promise<Client> {
    return new Client(await clientConfigFromOptions(options), clientOptions);
  }

  /** The client of a typed resource, a KindDefinition or a ResourceInfo. */
  resource<T extends ObjectLike, I = T>(resource: TypedResource<T, I>): ResourceClient<T, I>;
  resource<T extends ObjectLike = ApiObject>(resource: KindDefinition | ResourceInfo): ResourceClient<T>;
  resource<T extends ObjectLike, I = T>(resource: TypedResource<T, I> | KindDefinition | ResourceInfo): ResourceClient<T, I> {
    return new ResourceClient<T, I>(this.rest, isTypedResource(resource) ? resource.info : resourceInfo(resource));
  }

  /**
   * The client of a kind registered in the scheme, built-in or from a CRD. An unknown kind is a
   * 404 StatusError, as Kubernetes' "no matches for kind".
   */
  forKind<T extends ObjectLike = ApiObject>(apiVersion: string, kind: string): ResourceClient<T> {
    const def = this.scheme.byApiVersionKind(apiVersion, kind);
    if (!def) throw noKindMatch(apiVersion, kind);
    return this.resource<T>(def);
  }

  /** An untyped client for any resource, custom resources included. */
  dynamic(info: ResourceInfo): ResourceClient<ApiObject> {
    return new ResourceClient<ApiObject>(this.rest, resourceInfo(info));
  }

  /**
   * The resource types the server serves now (preferred versions, no subresources), custom
   * resources included; group versions that failed to answer are listed apart.
   */
  discoverResources(): Promise<{ resources: ServedResource[]; failed: string[] }> {
    return discoverServedResources(this.rest);
  }

  /** Closes idle connections. */
  close(): void {
    this.rest.close();
  }

  /** @internal */
  builtin(name: keyof BuiltinResources): ResourceClient<ObjectLike> {
    let client = this.builtins.get(name);
    if (!client) {
      client = new ResourceClient<ObjectLike>(this.rest, BUILTIN_RESOURCES[name].info);
      this.builtins.set(name, client);
    }
    return client;
  }
}

// The built-in accessors come from the map, one getter each, so a kind added to the map is served here.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Client extends BuiltinClients {}

for (const name of Object.keys(BUILTIN_RESOURCES) as Array<keyof BuiltinResources>) {
  Object.defineProperty(Client.prototype, name, {
    configurable: true,
    enumerable: false,
    get(this: Client) {
      return this.builtin(name);
    },
  });
}
