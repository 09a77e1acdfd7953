import type { TSchema } from '@sinclair/typebox';
import type { FieldError } from '../schema/field-error';
import type { ApiObject, GroupVersionKind } from './kind-definition';

/**
 * A POST to a subresource whose body is an object of another kind, answered with a Success Status
 * (201): Kubernetes' `pods/binding` (a Binding sets the pod's node) and `pods/eviction` (an Eviction
 * deletes the pod if its disruption budget allows). The kind declares the body; what the create does
 * is the API server's REST of that subresource.
 */
export interface SubresourceCreate {
  /** The kind of the body (and of the subresource in discovery and OpenAPI). */
  kind: GroupVersionKind;
  /** Its schema, for the OpenAPI document. */
  schema: TSchema;
  /** Errors of the body itself (a 422 Invalid of `kind`), checked before the stored object is read. */
  validate(body: ApiObject): FieldError[];
}

/**
 * A subresource a kind serves beyond `status` and `scale`: a PUT whose stored result keeps everything
 * of the object but what `updateOf` takes from the request (a namespace's `finalize`), or a POST of
 * another kind's body (a pod's `binding`).
 */
export interface ExtraSubresource {
  /** PUT: the object the request leaves, `current` with what the request may change. */
  updateOf?(incoming: ApiObject, current: ApiObject): ApiObject;
  /** The fields a PUT of the subresource never changes, as Kubernetes' reset fields: their ownership is not tracked. */
  resetFields?: readonly ResetField[];
  /**
   * Whether GET answers the whole object and PATCH patches it before `updateOf` takes what it may
   * change, as a PUT does (a pod's `ephemeralcontainers`); a PUT-only subresource otherwise.
   */
  readable?: boolean;
  /** Errors of a write through the subresource against the stored object (Kubernetes' ValidateUpdate of its strategy). */
  validateUpdate?(object: ApiObject, current: ApiObject): FieldError[];
  /** POST: a body of another kind applied to the stored object. */
  create?: SubresourceCreate;
}

/** A field a write keeps as stored (a reset field), by its path from the object's root (`['metadata', 'labels']`). */
export type ResetField = readonly string[];

/** What a status write resets when the kind says nothing: its spec, as most of Kubernetes' status strategies. */
export const DEFAULT_STATUS_RESET_FIELDS: readonly ResetField[] = [['spec']];

/**
 * A kind's status strategy, as Kubernetes' per-kind ones (PrepareForUpdate, GetResetFields,
 * ValidateUpdate): a write to `status` takes the request's status, and its labels and annotations
 * unless they are among the reset fields; everything else stays as stored. The reset fields are put
 * back from the stored object on a server-side apply and are never recorded in managedFields, so an
 * update and an apply of the subresource take the same fields.
 */
export interface StatusStrategy {
  /** Kubernetes' reset fields of the status subresource; DEFAULT_STATUS_RESET_FIELDS when absent. */
  resetFields?: readonly ResetField[];
  /** Errors of the write against the stored object (a custom resource's transition rules). */
  validateUpdate?(object: ApiObject, current: ApiObject): FieldError[];
  /** Server-set fields of a status write, after the reset fields are put back (a volume's phase transition time). */
  prepareForUpdate?(object: ApiObject, current: ApiObject): void;
}

/** Whether a status write takes `field` of the request's metadata (no reset field covers it). */
export function statusWriteTakes(strategy: StatusStrategy | undefined, field: 'labels' | 'annotations'): boolean {
  const reset = strategy?.resetFields ?? DEFAULT_STATUS_RESET_FIELDS;
  return !reset.some((path) => path[0] === 'metadata' && (path.length === 1 || (path.length === 2 && path[1] === field)));
}

/** The verbs a kind's own subresource answers, in Kubernetes' (sorted) order. */
export function extraSubresourceVerbs(subresource: ExtraSubresource): Array<'create' | 'get' | 'patch' | 'update'> {
  const verbs: Array<'create' | 'get' | 'patch' | 'update'> = [];
  if (subresource.create) verbs.push('create');
  if (subresource.readable) verbs.push('get');
  if (subresource.readable && subresource.updateOf) verbs.push('patch');
  if (subresource.updateOf) verbs.push('update');
  return verbs;
}

/** Where a connect request goes: a path on the node agent of a node, with its query. */
export interface ConnectLocation {
  nodeName: string;
  path: string;
  query: URLSearchParams;
}

/**
 * A subresource that is a connection to the node agent running the object (a pod's `log`, `exec`,
 * `attach`, `portforward`), as Kubernetes' connecters: the API server proxies the request, streaming
 * or upgraded, to the location this gives.
 */
export interface ConnectSubresource {
  /** HTTP methods answered (`GET` for log; `GET` and `POST` for the streaming ones). */
  methods: readonly string[];
  /** The node agent location for the request's options; throws a StatusError (400) when they are bad. */
  location(object: ApiObject, query: URLSearchParams): ConnectLocation;
}

/**
 * The rules of one kind that no schema states, as Kubernetes' per-kind strategies (PrepareForCreate,
 * PrepareForUpdate, ValidateUpdate, the status strategy's reset fields, ReturnDeletedObject, graceful
 * deletion). The generic registry, router, discovery and OpenAPI read only this; every member is
 * optional and absent means the generic behaviour.
 */
export interface KindStrategy {
  /**
   * Whether a create clears `status` (the default for kinds with a status subresource, whose status
   * is the controllers' to write). Nodes keep what their agent registers.
   */
  resetStatusOnCreate?: boolean;
  /**
   * Server-set fields of a new object beyond the generic metadata: its initial status, say. It runs on
   * each name tried, after the name and uid are set, so it may read them (a Job labels its pods with its uid).
   */
  prepareForCreate?(object: ApiObject): void;
  /** What an update of the main resource may not change beyond the generic carry-over. */
  prepareForUpdate?(object: ApiObject, current: ApiObject): void;
  /**
   * Warnings for the writer of a valid create (`current` undefined) or update of the main resource
   * (Kubernetes' WarningsOnCreate and WarningsOnUpdate): what the object asks that the server will not do.
   */
  warnings?(object: ApiObject, current: ApiObject | undefined): string[];
  /** Errors of an update against the stored object that the schema cannot state (immutable fields). */
  validateUpdate?(object: ApiObject, current: ApiObject): FieldError[];
  /** How a write to the `status` subresource is taken; see StatusStrategy. */
  status?: StatusStrategy;
  /**
   * Whether `metadata.generation` is kept; by default for kinds with a status subresource. Pods,
   * Services, Nodes and Namespaces have a status subresource and no generation in Kubernetes.
   */
  tracksGeneration?: boolean;
  /**
   * What a delete that names no propagation policy does with the object's dependents (Kubernetes'
   * DefaultGarbageCollectionPolicy): `Orphan` keeps them (batch/v1 Jobs, for compatibility); absent,
   * the object's own finalizers decide, else the garbage collector deletes them in the background.
   */
  defaultPropagationPolicy?: 'Orphan';
  /**
   * Objects every cluster has from its first start, which the server creates when they are missing
   * (Kubernetes' system priority classes). A cluster-scoped kind's only.
   */
  bootstrapObjects?: readonly ApiObject[];
  /** Whether a delete answers with the removed object (Kubernetes' ReturnDeletedObject) instead of a Status. */
  returnDeletedObject?: boolean;
  /** The grace period of a delete, in seconds (pods wait for their node agent); 0 when absent. */
  deletionGracePeriodSeconds?(object: ApiObject, requestedSeconds: number | undefined): number;
  /** What else holds a deleted object besides metadata.finalizers (a namespace's spec.finalizers). */
  pendingFinalizers?(object: ApiObject): readonly unknown[];
  /** Changes made when an object is first marked for deletion (a namespace's phase becomes Terminating). */
  onDeletionMarked?(object: ApiObject): void;
  /** Subresources served beyond status and scale, by name. */
  subresources?: Readonly<Record<string, ExtraSubresource>>;
  /**
   * Where an object of the kind holds a pod spec: the pod's own (`template` false) or the template
   * its pods are made from (`template` true, the spec at `path` and the template's metadata beside it).
   * Admission checks of pod specs (privileged containers, Pod Security) read this.
   */
  podSpec?: { readonly path: readonly string[]; readonly template: boolean };
  /** Subresources that connect to the node agent of the object's node, by name. */
  connect?: Readonly<Record<string, ConnectSubresource>>;
  /**
   * The name an object is stored under for a name a request gives, when a kind's objects answer to
   * two names (a system namespace's Kubernetes name); the name itself when absent.
   */
  storedName?: (name: string) => string;
  /** The `proxy` subresource: where a request to `<name>[:<port>]/proxy/<path>` goes. */
  proxy?: ProxySubresource;
}

/** Where a proxied request goes: a host and port of the object's, or the agent of a node. */
export type ProxyTarget =
  | { via: 'direct'; scheme: 'http' | 'https'; host: string; port?: number }
  /**
   * The node agent of `nodeName` over the API server's connection to it (its client certificate, its
   * CA); with `port`, another port of the node's address, plainly.
   */
  | { via: 'nodeAgent'; nodeName: string; port?: number; scheme?: 'http' | 'https' };

/** Reads an object of another kind in the same scope, for a proxy location (a Service's Endpoints, their pods). */
export type ProxyLookup = (resource: 'pods' | 'endpoints' | 'nodes', namespace: string, name: string) => Promise<ApiObject>;

/**
 * Kubernetes' Redirector of a kind (ResourceLocation): the target of `pods/<id>/proxy`,
 * `services/<id>/proxy` or `nodes/<id>/proxy`, where the id is `name`, `name:port` or
 * `scheme:name:port`. It throws a StatusError (400, 503) when the id names no reachable target.
 */
export interface ProxySubresource {
  /** The object's name within an id (what is read and authorized); undefined when the id is not well formed. */
  nameOf(id: string): string | undefined;
  location(object: ApiObject, id: string, lookup: ProxyLookup): Promise<ProxyTarget>;
}
