import type { ObjectMeta } from '../meta/object-meta';
import type { TableColumnDefinition } from '../meta/table';
import type { FieldError } from '../schema/field-error';
import type { JsonSchema } from '../schema/json-schema';
import type { KindStrategy } from './kind-strategy';

/** Any stored object, before its kind is known to the compiler. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Paths are Kubernetes JSON paths (`.spec.replicas`), as in a CRD's scale subresource. */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  /** Path of the selector; for built-in kinds it holds a LabelSelector object, for CRDs a selector string. */
  labelSelectorPath?: string;
}

export interface Subresources {
  status?: boolean;
  scale?: ScaleSubresource;
}

export interface TableCellContext {
  /** The server's clock, for AGE-style cells. */
  now: Date;
}

export interface TableColumn extends TableColumnDefinition {
  cell: (obj: ApiObject, context: TableCellContext) => unknown;
}

/** Returns the value a field selector compares with; every value is a string, as in Kubernetes' field sets. */
export type FieldGetter = (obj: ApiObject) => string;

/** A default a schema cannot express (it depends on another field); mutates the object. */
export type DefaultHook = (obj: ApiObject) => void;

/** A check across several fields; returns every failure. Receives data that may not match the schema. */
/** A kind's rule over a whole object; on an update it also sees the stored object (`current`). */
export type ValidationRule = (obj: ApiObject, current?: ApiObject) => FieldError[];

export interface DeprecationInfo {
  deprecated: boolean;
  /** Text of the `Warning` header; a default one is built when absent. */
  warning?: string;
  /** Release in which the version goes away, for the `removed_release` metric label. */
  removedRelease?: string;
}

export interface KindDefinition {
  /** `""` for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Plural resource name used in paths. */
  resource: string;
  singular: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  subresources: Subresources;
  /** The whole object's schema, with no `$ref`. */
  schema: JsonSchema;
  fieldSelectors: Record<string, FieldGetter>;
  /** Undefined means the default table (Name, Created At). */
  columns?: TableColumn[];
  /** Whether PUT to a missing object creates it. */
  allowCreateOnUpdate: boolean;
  defaultHooks: DefaultHook[];
  validationRules: ValidationRule[];
  /** The kind's rules that no schema states; the generic server code reads only this. */
  strategy: KindStrategy;
  /** Whether the version is served (a CRD may keep unserved versions). */
  served: boolean;
  /**
   * Its definition is being deleted (a terminating CRD): its objects are still read, changed and
   * deleted so that their finalizers can be removed, but none is created and discovery omits it.
   */
  terminating?: boolean;
  /** Whether this version is the one objects are stored in. */
  storage: boolean;
  deprecation?: DeprecationInfo;
  /** Where the definition came from; CRD-derived kinds carry the CRD's name. */
  source: { type: 'builtin' } | { type: 'crd'; name: string };
  /**
   * Set on the versions of a CRD whose conversion strategy is `Webhook`: objects are stored at
   * `storageVersion` and converted by the webhook to the version a request names.
   */
  conversion?: KindConversion;
  /**
   * Set on the twin the scheme makes of a kind of a `*.svc.io` group, served under the group's
   * `*.k8s.io` name: the definition whose objects it serves, from the same storage.
   */
  aliasOf?: KindDefinition;
  /**
   * Set on a kind served from another kind's storage through a conversion of the server's own
   * (events.k8s.io Events are core/v1 Events): its objects are stored as that kind's and converted
   * at the edges, so either API reads what the other wrote.
   */
  storedAs?: StoredAs;
}

/** The kind a definition's objects are stored as, and the conversions both ways. */
export interface StoredAs {
  definition: KindDefinition;
  /** An object of this kind as the stored kind holds it. */
  toStored(object: ApiObject): ApiObject;
  /** A stored object as this kind serves it. */
  fromStored(object: ApiObject): ApiObject;
}

/** A CRD's conversion webhook, as its `spec.conversion.webhook` gives it. */
export interface KindConversion {
  storageVersion: string;
  clientConfig: { url?: string; service?: { namespace: string; name: string; path?: string; port?: number }; caBundle?: string };
  conversionReviewVersions: string[];
}

/** The definition whose storage a definition serves: itself, or the one its alias stands for. */
export function storedDefinition(def: KindDefinition): KindDefinition {
  return def.aliasOf ?? def;
}

export function apiVersionOf(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function gvkOf(def: KindDefinition): GroupVersionKind {
  return { group: def.group, version: def.version, kind: def.kind };
}
