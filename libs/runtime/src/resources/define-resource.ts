import {
  kindFromCrd,
  withKubernetesMarkers,
  type CustomResourceColumnDefinition,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
  type JsonSchema,
  type ObjectMeta,
} from '@svc/api';
import { typedResource, type TypedResource } from '@svc/client';
import { stringify } from 'yaml';
import type { InputOfVersion } from './defaulted-fields';

/** One version of a resource type: the schemas of its spec and status, and how kubectl shows it. */
/**
 * A TypeBox schema as `defineResource` takes it: by its shape, not by TypeBox's own `TSchema`, whose
 * `[Kind]` symbol is a different one in TypeBox's CommonJS and ES module declarations; so a schema
 * built in an ES module project (`module: NodeNext`, `Bundler`) fits these CommonJS declarations.
 */
export interface SchemaLike {
  static: unknown;
  params: unknown[];
}

/** The type a schema describes, as TypeBox's `Static` works it out. */
export type SchemaStatic<T extends SchemaLike> = (T & { params: [] })['static'];

export interface ResourceVersionDefinition<Spec extends SchemaLike = SchemaLike, Status extends SchemaLike = SchemaLike> {
  spec: Spec;
  status?: Status;
  /** Columns of `kubectl get` beside NAME and AGE. */
  printerColumns?: readonly CustomResourceColumnDefinition[];
  /** Served unless false (a version kept only to read old objects is not served). */
  served?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** Fields usable in field selectors (`.spec.color`). */
  selectableFields?: readonly string[];
  /** Rules over the whole object (`self.spec.min <= self.spec.max`), as the schema's `x-kubernetes-validations`. */
  validations?: readonly CelValidationRule[];
}

/** A CEL rule of Kubernetes' `x-kubernetes-validations`. */
export interface CelValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The object a version stores and serves: Kubernetes' envelope around its spec and status. */
export interface ResourceObject<Spec = unknown, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: Spec;
  status?: Status;
}

/** The object type of one version definition. */
export type ObjectOfVersion<V> =
  V extends ResourceVersionDefinition<infer Spec, infer Status>
    ? ResourceObject<SchemaStatic<Spec>, Status extends SchemaLike ? SchemaStatic<Status> : never>
    : never;

/**
 * How objects move between a version and the storage version (controller-runtime's hub and
 * spokes: every version converts to and from the one stored, never to each other).
 */
export interface VersionConversion<Version, Stored> {
  toStorage(object: Version): Stored;
  fromStorage(object: Stored): Version;
}

export interface ResourceDefinitionInput<V extends Record<string, ResourceVersionDefinition>, S extends keyof V & string> {
  group: string;
  kind: string;
  /** Lower-case plural; the kind lower-cased with an `s` by default. */
  plural?: string;
  singular?: string;
  scope?: 'Namespaced' | 'Cluster';
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** The version objects are stored in; every other version converts to and from it. */
  storage: S;
  versions: V;
  /**
   * Conversion functions of each version other than the storage one. Without them every version
   * shares one shape (Kubernetes' `None` strategy: only apiVersion changes).
   */
  conversion?: { [K in Exclude<keyof V, S>]: VersionConversion<ObjectOfVersion<V[K]>, ObjectOfVersion<V[S]>> };
  /** A status subresource (default: when the storage version has a status schema). */
  statusSubresource?: boolean;
  /** A scale subresource, by JSON paths into the object. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

/** A resource type defined in code: its CRD, a typed resource per version, its conversions. */
export interface DefinedResource<V extends Record<string, ResourceVersionDefinition>, S extends keyof V & string> {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  /** `<plural>.<group>`, the CustomResourceDefinition's name. */
  readonly name: string;
  readonly storageVersion: S;
  /** The typed resource of each version, for the client, informers and `@Reconciler`. */
  readonly versions: { readonly [K in keyof V]: TypedResource<ObjectOfVersion<V[K]>, InputOfVersion<V[K]>> };
  /** The typed resource of the storage version. */
  readonly resource: TypedResource<ObjectOfVersion<V[S]>, InputOfVersion<V[S]>>;
  /** Whether its versions convert by functions (served as a conversion webhook) rather than by apiVersion alone. */
  readonly convertsByFunction: boolean;
  /** The CustomResourceDefinition, with `strategy: None`; a manager that serves conversion sets the webhook. */
  crd(): CustomResourceDefinition;
  /** The CustomResourceDefinition as YAML, for `kubectl apply -f`. */
  yaml(): string;
  /** `object` (of any version of this type) in `apiVersion` (a version name or `group/version`). */
  convert(object: ResourceObject, apiVersion: string): ResourceObject;
}

/**
 * The schema as plain JSON, as a CRD carries it to any Kubernetes cluster: TypeBox's symbols and
 * functions dropped, the schema builders' markers (`ListMap`, `FreeForm`, ...) spelled as Kubernetes'.
 */
function plainSchema(schema: SchemaLike): JsonSchema {
  return withKubernetesMarkers(JSON.parse(JSON.stringify(schema)) as JsonSchema);
}

/**
 * Defines a custom resource type once, in TypeScript. From it come the object type of each version
 * (`ResourceType<typeof greetings>`), the typed resources that the client, the informers and
 * `@Reconciler` take, the CustomResourceDefinition the API server compiles (schema, defaults,
 * validation rules, printer columns, subresources) and the conversion between versions.
 */
export function defineResource<const V extends Record<string, ResourceVersionDefinition>, const S extends keyof V & string>(
  input: ResourceDefinitionInput<V, S>,
): DefinedResource<V, S> {
  const plural = input.plural ?? `${input.kind.toLowerCase()}s`;
  const name = `${plural}.${input.group}`;
  const versionNames = Object.keys(input.versions);
  if (!versionNames.includes(input.storage)) throw new Error(`${name}: the storage version ${input.storage} is not among its versions`);
  const conversion = input.conversion as Record<string, VersionConversion<ResourceObject, ResourceObject>> | undefined;
  for (const version of versionNames) {
    if (version !== input.storage && conversion && !conversion[version]) throw new Error(`${name}: version ${version} has no conversion to ${input.storage}`);
  }
  const statusSubresource = input.statusSubresource ?? input.versions[input.storage].status !== undefined;

  const crdVersion = (version: string): CustomResourceDefinitionVersion => {
    const def = input.versions[version];
    const properties: Record<string, JsonSchema> = { spec: plainSchema(def.spec) };
    if (def.status) properties.status = plainSchema(def.status);
    const openAPIV3Schema: JsonSchema = { type: 'object', required: ['spec'], properties };
    if (def.validations?.length) openAPIV3Schema['x-kubernetes-validations'] = def.validations.map((rule) => ({ ...rule }));
    const out: CustomResourceDefinitionVersion = { name: version, served: def.served ?? true, storage: version === input.storage, schema: { openAPIV3Schema } };
    if (def.deprecated) out.deprecated = true;
    if (def.deprecationWarning) out.deprecationWarning = def.deprecationWarning;
    const subresources: NonNullable<CustomResourceDefinitionVersion['subresources']> = {};
    if (statusSubresource) subresources.status = {};
    if (input.scale) subresources.scale = { ...input.scale };
    if (Object.keys(subresources).length > 0) out.subresources = subresources;
    if (def.printerColumns?.length) out.additionalPrinterColumns = def.printerColumns.map((c) => ({ ...c }));
    if (def.selectableFields?.length) out.selectableFields = def.selectableFields.map((jsonPath) => ({ jsonPath }));
    return out;
  };
  const crd = (): CustomResourceDefinition => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: input.group,
      scope: input.scope ?? 'Namespaced',
      names: {
        plural,
        singular: input.singular ?? input.kind.toLowerCase(),
        kind: input.kind,
        listKind: `${input.kind}List`,
        ...(input.shortNames?.length ? { shortNames: [...input.shortNames] } : {}),
        ...(input.categories?.length ? { categories: [...input.categories] } : {}),
      },
      versions: versionNames.map(crdVersion),
      conversion: { strategy: 'None' },
    },
  });

  const built = crd();
  const versions = Object.fromEntries(versionNames.map((v) => [v, typedResource(kindFromCrd(built, v))])) as DefinedResource<V, S>['versions'];

  const versionOf = (apiVersion: string | undefined): string => {
    const version = apiVersion?.startsWith(`${input.group}/`) ? apiVersion.slice(input.group.length + 1) : apiVersion;
    if (!version || !versionNames.includes(version)) throw new Error(`${name}: no version ${JSON.stringify(apiVersion)}`);
    return version;
  };
  const convert = (object: ResourceObject, apiVersion: string): ResourceObject => {
    const from = versionOf(object.apiVersion);
    const to = versionOf(apiVersion);
    const target = `${input.group}/${to}`;
    if (from === to || !conversion) return { ...object, apiVersion: target };
    const stored = from === input.storage ? object : conversion[from].toStorage(object);
    const out = to === input.storage ? stored : conversion[to].fromStorage(stored);
    // The metadata is the object's, whatever a conversion function did to it (Kubernetes refuses a
    // webhook that changes anything but labels and annotations).
    return { ...out, apiVersion: target, kind: input.kind, metadata: object.metadata };
  };

  return {
    group: input.group,
    kind: input.kind,
    plural,
    name,
    storageVersion: input.storage,
    versions,
    resource: versions[input.storage],
    convertsByFunction: conversion !== undefined && versionNames.length > 1,
    crd,
    yaml: () => stringify(crd()),
    convert,
  };
}

/** The object type of a defined resource's storage version: `type Greeting = ResourceType<typeof greetings>`. */
export type ResourceType<R> = R extends DefinedResource<infer V, infer S> ? ObjectOfVersion<V[S]> : never;

/** The object type of one version: `VersionType<typeof greetings, 'v1alpha1'>`. */
export type VersionType<R, K extends string> = R extends DefinedResource<infer V, infer _S> ? (K extends keyof V ? ObjectOfVersion<V[K]> : never) : never;
