import { Type, type TSchema } from '@sinclair/typebox';
import type { DefinedResource, ResourceObject, ResourceVersionDefinition, SchemaLike, SchemaStatic } from './define-resource';

/**
 * A field the API server fills in when it is left out: `replicas: Defaulted(Type.Integer(), 1)`.
 * Its CRD schema has the `default` and leaves the field out of `required`, so a creator may omit it;
 * its type says it is there, as it is in every object the API server returns and a reconciler reads
 * (`ResourceType`). `ResourceInput` is the type for creating, where it is optional.
 */
export function Defaulted<T extends SchemaLike, const D extends SchemaStatic<T>>(schema: T, value: D): T & { default: SchemaStatic<T> } {
  // Optional for TypeBox (so out of `required`), while the declared type keeps it required: the
  // server's defaulting makes that true of every stored object.
  return Type.Optional({ ...(schema as unknown as TSchema), default: value }) as unknown as T & { default: SchemaStatic<T> };
}

/** The keys of an object schema's properties that are `Defaulted`. */
type DefaultedKeys<P> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value of one property for a creator: its schema's input type where the schema is known. */
type PropertyInput<S, V> = S extends SchemaLike ? InputOf<S> | Extract<V, undefined> : V;

/**
 * What a creator writes for a schema: its static type with every `Defaulted` property optional, in
 * nested objects and array items too. Other properties keep their optionality.
 */
export type InputOf<S extends SchemaLike> = S extends { properties: infer P }
  ? ObjectInput<P, SchemaStatic<S>>
  : S extends { type: 'array'; items: infer I extends SchemaLike }
    ? Array<InputOf<I>>
    : SchemaStatic<S>;

type ObjectInput<P, O> = Simplify<
  { [K in keyof O as K extends DefaultedKeys<P> ? never : K]: K extends keyof P ? PropertyInput<P[K], O[K]> : O[K] } & {
    [K in keyof O as K extends DefaultedKeys<P> ? K : never]?: K extends keyof P ? PropertyInput<P[K], O[K]> : O[K];
  }
>;

/** The object a creator writes for one version definition: defaulted fields optional. */
export type InputOfVersion<V> =
  V extends ResourceVersionDefinition<infer Spec, infer Status> ? ResourceObject<InputOf<Spec>, Status extends SchemaLike ? InputOf<Status> : never> : never;

/**
 * The type for creating an object of a defined resource (its storage version): `Defaulted` fields
 * optional. `ResourceType` is the type of what the API server returns and a reconciler reads, with
 * them present. Both from the one schema.
 */
export type ResourceInput<R> = R extends DefinedResource<infer V, infer S> ? InputOfVersion<V[S]> : never;
