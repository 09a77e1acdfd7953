import { errorMessage } from '@svc/machinery';
import type { ValidateFunction } from 'ajv';
import { annotationSizeErrors } from '../meta/names';
import type { ApiObject, KindDefinition } from '../scheme/kind-definition';
import { compileOnce, sharedDefaulter, sharedValidator } from './ajv-factory';
import { defaultsSkeleton, dropNulls } from './defaulting';
import { mapAjvErrors } from './error-mapping';
import type { FieldError } from './field-error';
import type { JsonSchema } from './json-schema';
import { assertNoRefs, schemaAt } from './schema-walk';
import { walkUnknownFields } from './unknown-fields';

export interface CompiledKind {
  readonly definition: KindDefinition;
  /** The whole object's JSON Schema, `$ref`-free, for strategic merge and apply to walk. */
  readonly schema: JsonSchema;
  /**
   * Fills defaults IN PLACE and returns the same object: drops `null`s of non-nullable fields,
   * applies the schema's `default` keywords, then the kind's default hooks.
   */
  default<T>(obj: T): T;
  /** Schema errors then cross-field errors; empty when valid. Never mutates. */
  validate(obj: unknown, current?: ApiObject): FieldError[];
  /** Paths (`spec.foo`, `spec.containers[0].bar`) of fields the schema does not declare. */
  unknownFields(obj: unknown): string[];
  /** Deletes undeclared fields IN PLACE and returns their paths. */
  prune(obj: unknown): string[];
  /** Schema of a sub-tree addressed by field names and list indexes. */
  schemaAt(path: readonly (string | number)[]): JsonSchema | undefined;
}

function isObject(value: unknown): value is ApiObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rules every kind shares: Kubernetes' ObjectMeta checks that a schema cannot state. */
function metadataRules(obj: ApiObject): FieldError[] {
  const meta = obj.metadata;
  if (!isObject(meta) || (!meta.name && !meta.generateName)) {
    return [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' }];
  }
  const errors: FieldError[] = [];
  for (const error of annotationSizeErrors(meta.annotations, 'metadata.annotations')) errors.push(error);
  if (Array.isArray(meta.ownerReferences)) {
    const controllers = (meta.ownerReferences as unknown[]).filter(isObject).filter((r) => r.controller === true);
    if (controllers.length > 1) {
      const names = controllers.map((r) => `${String(r.kind)}/${String(r.name)}`);
      errors.push({
        type: 'FieldValueInvalid',
        field: 'metadata.ownerReferences',
        detail: `Only one reference can have Controller set to true. Found "true" in references for ${names[0]} and ${names[1]}`,
      });
    }
  }
  return errors;
}

function sortMetadataFirst(errors: FieldError[]): void {
  const isMeta = (e: FieldError) => e.field === 'metadata' || e.field.startsWith('metadata.');
  if (!errors.some((e, i) => isMeta(e) && errors.slice(0, i).some((x) => !isMeta(x)))) return;
  const meta = errors.filter(isMeta);
  const rest = errors.filter((e) => !isMeta(e));
  errors.length = 0;
  for (const e of meta) errors.push(e);
  for (const e of rest) errors.push(e);
}

class Compiled implements CompiledKind {
  private validator?: ValidateFunction;
  /** null: the schema has no defaults. */
  private defaulter?: ValidateFunction | null;

  constructor(readonly definition: KindDefinition) {
    assertNoRefs(definition.schema);
  }

  get schema(): JsonSchema {
    return this.definition.schema;
  }

  default<T>(obj: T): T {
    if (!isObject(obj)) return obj;
    dropNulls(obj, this.schema);
    if (this.defaulter === undefined) {
      const skeleton = defaultsSkeleton(this.schema);
      this.defaulter = skeleton ? compileOnce(sharedDefaulter(), skeleton) : null;
    }
    this.defaulter?.(obj);
    for (const hook of this.definition.defaultHooks) hook(obj);
    return obj;
  }

  /** The schema's and the kind's errors of `obj`; `current` is the stored object on an update. */
  validate(obj: unknown, current?: ApiObject): FieldError[] {
    this.validator ??= compileOnce(sharedValidator(), this.schema);
    const dialect = this.definition.source.type === 'crd' ? 'custom-resource' : 'builtin';
    const errors = this.validator(obj) ? [] : mapAjvErrors(this.validator.errors ?? [], obj, this.schema, dialect);
    if (!isObject(obj)) return errors;
    const mistyped = errors.some((e) => e.type === 'FieldValueTypeInvalid');
    // A configuration kind (a file a process reads) has no ObjectMeta and none of its rules.
    const rules = this.schema.properties?.metadata === undefined ? [] : metadataRules(obj);
    // One by one: a body can carry a few hundred thousand errors, more than a spread call takes.
    for (const error of rules) errors.push(error);
    // Kubernetes checks ObjectMeta before anything else of a kind, so its errors come first.
    sortMetadataFirst(errors);
    for (const rule of this.definition.validationRules) {
      try {
        for (const error of rule(obj, current)) errors.push(error);
      } catch (error) {
        // The rules read typed fields. Kubernetes never runs them on a body that does not decode into
        // the kind; here a rule that trips over a mistyped field (an object where a list belongs) has
        // nothing to add to the type errors already found. On a well-typed body a throw is a defect.
        if (!mistyped) throw error;
      }
    }
    return errors;
  }

  unknownFields(obj: unknown): string[] {
    return walkUnknownFields(obj, this.schema, false);
  }

  prune(obj: unknown): string[] {
    return walkUnknownFields(obj, this.schema, true);
  }

  schemaAt(path: readonly (string | number)[]): JsonSchema | undefined {
    return schemaAt(this.schema, path);
  }
}

const cache = new WeakMap<KindDefinition, CompiledKind>();

/** One compiled engine per definition, cached; ajv compiles each function on first use. */
export function compileKind(definition: KindDefinition): CompiledKind {
  let compiled = cache.get(definition);
  if (!compiled) {
    compiled = new Compiled(definition);
    cache.set(definition, compiled);
  }
  return compiled;
}

/** Compiles a schema eagerly and reports why it cannot be used (for a CRD's own validation). */
export function schemaCompileError(schema: JsonSchema): string | undefined {
  try {
    assertNoRefs(schema);
    compileOnce(sharedValidator(), schema);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}
