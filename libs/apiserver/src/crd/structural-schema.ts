import { fieldErrors, type FieldError, type JsonSchema } from '@svc/api';
import { isRecord } from '@svc/machinery';

/**
 * Kubernetes' structural-schema rules for a CustomResourceDefinition version's `openAPIV3Schema`,
 * written against this product's marker names. A structural schema is what makes pruning,
 * defaulting and apply well defined: every node says its type, logical junctors only restrict
 * values, and the list/map markers sit where they make sense.
 */

const MARKER = {
  preserve: 'x-svc-preserve-unknown-fields',
  intOrString: 'x-svc-int-or-string',
  embedded: 'x-svc-embedded-resource',
  listType: 'x-svc-list-type',
  listMapKeys: 'x-svc-list-map-keys',
  mapType: 'x-svc-map-type',
} as const;

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** Keywords a structural schema may not use at all. */
const FORBIDDEN = ['$ref', 'definitions', 'dependencies', 'additionalItems', 'patternProperties', 'id', '$schema', '$id'] as const;

/** Keywords that describe structure and so have no place inside a logical junctor. */
const STRUCTURAL_IN_JUNCTOR = ['description', 'type', 'default', 'additionalProperties', 'nullable', 'title'] as const;

function typeOf(node: JsonSchema): string | undefined {
  return typeof node.type === 'string' ? node.type : undefined;
}

/** Kubernetes allows exactly these shapes of `type` inside the junctors of an int-or-string node. */
function isIntOrStringJunctor(node: JsonSchema): boolean {
  const alternatives = node.anyOf ?? [];
  return (
    alternatives.length === 2 &&
    alternatives.every((a) => isRecord(a) && Object.keys(a).length === 1) &&
    new Set(alternatives.map((a) => a.type)).size === 2 &&
    alternatives.some((a) => a.type === 'integer') &&
    alternatives.some((a) => a.type === 'string')
  );
}

class StructuralValidator {
  readonly errors: FieldError[] = [];

  node(node: unknown, path: string, context: { root?: boolean } = {}): void {
    if (!isRecord(node)) {
      this.errors.push(fieldErrors.typeInvalid(path, node, 'must be an object'));
      return;
    }
    const schema = node as JsonSchema;
    for (const key of FORBIDDEN)
      if (schema[key] !== undefined) this.errors.push(fieldErrors.forbidden(`${path}.${key}`, `${key} is not supported in a structural schema`));
    if (Array.isArray(schema.items)) this.errors.push(fieldErrors.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
    if (schema.uniqueItems === true)
      this.errors.push(
        fieldErrors.forbidden(
          `${path}.uniqueItems`,
          `uniqueItems cannot be set to true since the runtime complexity becomes quadratic; use ${MARKER.listType}: set instead`,
        ),
      );

    const type = typeOf(schema);
    if (Array.isArray(schema.type)) this.errors.push(fieldErrors.invalid(`${path}.type`, schema.type, 'must be a single type'));
    else if (schema.type !== undefined && (typeof schema.type !== 'string' || !TYPES.has(schema.type))) {
      this.errors.push(fieldErrors.notSupported(`${path}.type`, schema.type, [...TYPES]));
    }

    const preserve = schema[MARKER.preserve];
    const intOrString = schema[MARKER.intOrString];
    if (preserve === false) this.errors.push(fieldErrors.invalid(`${path}.${MARKER.preserve}`, false, 'must be true or undefined'));
    if (intOrString === false) this.errors.push(fieldErrors.invalid(`${path}.${MARKER.intOrString}`, false, 'must be true or undefined'));
    if (intOrString === true && type !== undefined)
      this.errors.push(fieldErrors.invalid(`${path}.type`, type, `must be empty if ${MARKER.intOrString} is true`));
    if (type === undefined && schema.type === undefined && intOrString !== true && preserve !== true) {
      this.errors.push(fieldErrors.required(`${path}.type`, `must not be empty for specified ${path.includes('.properties[') ? 'object fields' : 'nodes'}`));
    }
    if (context.root && type !== undefined && type !== 'object') this.errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object at the root'));

    if (schema[MARKER.embedded] === true) {
      if (type !== 'object') this.errors.push(fieldErrors.required(`${path}.type`, `must be object if ${MARKER.embedded} is true`));
      if (!schema.properties && preserve !== true) {
        this.errors.push(fieldErrors.required(`${path}.properties`, `must not be empty if ${MARKER.embedded} is true without ${MARKER.preserve}`));
      }
    } else if (schema[MARKER.embedded] === false) {
      this.errors.push(fieldErrors.invalid(`${path}.${MARKER.embedded}`, false, 'must be true or undefined'));
    }

    if (schema.properties !== undefined && schema.additionalProperties !== undefined) {
      this.errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutually exclusive'));
    }
    if (schema.additionalProperties === false)
      this.errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be false; unknown fields are pruned'));
    if ((schema.properties !== undefined || schema.additionalProperties !== undefined) && type !== undefined && type !== 'object') {
      this.errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object when properties or additionalProperties are given'));
    }
    if (schema.items !== undefined && type !== undefined && type !== 'array')
      this.errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be array when items is given'));
    if (type === 'array' && schema.items === undefined) this.errors.push(fieldErrors.required(`${path}.items`, 'must be specified for arrays'));

    this.listAndMapMarkers(schema, path, type);

    if (isRecord(schema.properties)) {
      for (const [name, child] of Object.entries(schema.properties)) this.node(child, `${path}.properties[${name}]`);
    }
    if (isRecord(schema.additionalProperties)) this.node(schema.additionalProperties, `${path}.additionalProperties`);
    if (isRecord(schema.items)) this.node(schema.items, `${path}.items`);

    for (const junctor of JUNCTORS) {
      const list = schema[junctor];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        this.errors.push(fieldErrors.typeInvalid(`${path}.${junctor}`, list, 'must be a list of schemas'));
        continue;
      }
      list.forEach((alt, i) =>
        this.junctorNode(alt, `${path}.${junctor}[${i}]`, schema, intOrString === true && junctor === 'anyOf' && isIntOrStringJunctor(schema)),
      );
    }
    if (schema.not !== undefined) this.junctorNode(schema.not, `${path}.not`, schema, false);
  }

  /** A node under allOf/anyOf/oneOf/not: it may only restrict values of fields the structure declares. */
  private junctorNode(node: unknown, path: string, structural: JsonSchema, typeAllowed: boolean): void {
    if (!isRecord(node)) {
      this.errors.push(fieldErrors.typeInvalid(path, node, 'must be an object'));
      return;
    }
    const schema = node as JsonSchema;
    for (const key of STRUCTURAL_IN_JUNCTOR) {
      if (key === 'type' && typeAllowed) continue;
      if (schema[key] !== undefined) this.errors.push(fieldErrors.forbidden(`${path}.${key}`, `must not be used inside a logical junctor`));
    }
    for (const key of Object.keys(schema)) {
      if (key.startsWith('x-svc-') || key.startsWith('x-kubernetes-'))
        this.errors.push(fieldErrors.forbidden(`${path}.${key}`, 'must not be used inside a logical junctor'));
    }
    for (const key of FORBIDDEN)
      if (schema[key] !== undefined) this.errors.push(fieldErrors.forbidden(`${path}.${key}`, `${key} is not supported in a structural schema`));
    if (isRecord(schema.properties)) {
      for (const [name, child] of Object.entries(schema.properties)) {
        const declared = structural.properties?.[name];
        if (!declared && structural[MARKER.preserve] !== true) {
          this.errors.push(
            fieldErrors.required(`${path}.properties[${name}]`, 'must have a corresponding property in the structural schema outside the logical junctor'),
          );
          continue;
        }
        this.junctorNode(child, `${path}.properties[${name}]`, declared ?? {}, false);
      }
    }
    if (isRecord(schema.items)) this.junctorNode(schema.items, `${path}.items`, isRecord(structural.items) ? structural.items : {}, false);
    for (const junctor of JUNCTORS) {
      const list = schema[junctor];
      if (Array.isArray(list)) list.forEach((alt, i) => this.junctorNode(alt, `${path}.${junctor}[${i}]`, structural, false));
    }
    if (schema.not !== undefined) this.junctorNode(schema.not, `${path}.not`, structural, false);
  }

  private listAndMapMarkers(schema: JsonSchema, path: string, type: string | undefined): void {
    const listType = schema[MARKER.listType];
    const keys = schema[MARKER.listMapKeys];
    const mapType = schema[MARKER.mapType];
    if (listType !== undefined) {
      if (type !== 'array') this.errors.push(fieldErrors.invalid(`${path}.type`, type ?? '', `must be array if ${MARKER.listType} is specified`));
      if (listType !== 'atomic' && listType !== 'set' && listType !== 'map')
        this.errors.push(fieldErrors.notSupported(`${path}.${MARKER.listType}`, listType, ['atomic', 'set', 'map']));
    }
    if (mapType !== undefined) {
      if (type !== 'object') this.errors.push(fieldErrors.invalid(`${path}.type`, type ?? '', `must be object if ${MARKER.mapType} is specified`));
      if (mapType !== 'atomic' && mapType !== 'granular')
        this.errors.push(fieldErrors.notSupported(`${path}.${MARKER.mapType}`, mapType, ['atomic', 'granular']));
    }
    if (keys !== undefined && listType !== 'map') {
      this.errors.push(fieldErrors.forbidden(`${path}.${MARKER.listMapKeys}`, `must only be set if ${MARKER.listType} is map`));
    }
    const items = isRecord(schema.items) ? schema.items : undefined;
    if (listType === 'set' && items) {
      const itemType = typeOf(items);
      if (itemType !== undefined && !SCALARS.has(itemType) && items[MARKER.mapType] !== 'atomic') {
        this.errors.push(fieldErrors.invalid(`${path}.items.type`, itemType, `must be a scalar type (or an atomic map) if ${MARKER.listType} is set`));
      }
    }
    if (listType === 'map') {
      if (!Array.isArray(keys) || keys.length === 0) {
        this.errors.push(fieldErrors.required(`${path}.${MARKER.listMapKeys}`, `must not be empty if ${MARKER.listType} is map`));
      }
      if (!items || typeOf(items) !== 'object') {
        this.errors.push(fieldErrors.invalid(`${path}.items.type`, items ? (typeOf(items) ?? '') : '', `must be object if ${MARKER.listType} is map`));
      } else if (Array.isArray(keys)) {
        const required = new Set(items.required ?? []);
        keys.forEach((key, i) => {
          const at = `${path}.${MARKER.listMapKeys}[${i}]`;
          const prop = typeof key === 'string' ? items.properties?.[key] : undefined;
          if (!prop) {
            this.errors.push(fieldErrors.invalid(at, key, 'entries must all be names of item properties'));
            return;
          }
          const propType = typeOf(prop);
          if (propType === undefined || !SCALARS.has(propType)) {
            this.errors.push(fieldErrors.invalid(at, key, 'must be a scalar typed property of the items'));
          }
          if (!required.has(key) && prop.default === undefined) {
            this.errors.push(fieldErrors.required(at, 'this property is in x-svc-list-map-keys, so it must have a default or be a required property'));
          }
        });
        if (new Set(keys).size !== keys.length)
          this.errors.push(fieldErrors.invalid(`${path}.${MARKER.listMapKeys}`, keys, 'must not contain duplicate entries'));
      }
    }
  }

  /** `metadata` at the root may only constrain `name` and `generateName`, as Kubernetes allows. */
  metadata(schema: JsonSchema, path: string): void {
    const metadata = schema.properties?.metadata;
    if (!isRecord(metadata)) return;
    const at = `${path}.properties[metadata]`;
    const allowed = new Set(['type', 'properties']);
    for (const key of Object.keys(metadata))
      if (!allowed.has(key))
        this.errors.push(fieldErrors.forbidden(`${at}.${key}`, 'must not be specified; only metadata.name and metadata.generateName may be restricted'));
    if (metadata.type !== undefined && metadata.type !== 'object') this.errors.push(fieldErrors.invalid(`${at}.type`, metadata.type, 'must be object'));
    const props = isRecord(metadata.properties) ? metadata.properties : {};
    for (const [name, prop] of Object.entries(props)) {
      if (name !== 'name' && name !== 'generateName') {
        this.errors.push(
          fieldErrors.forbidden(`${at}.properties[${name}]`, 'must not be specified; only metadata.name and metadata.generateName may be restricted'),
        );
      } else if (isRecord(prop) && prop.type !== undefined && prop.type !== 'string') {
        this.errors.push(fieldErrors.invalid(`${at}.properties[${name}].type`, prop.type, 'must be string'));
      }
    }
  }
}

/**
 * Every violation of the structural-schema rules in one version's `openAPIV3Schema`, with field
 * paths under `path` (for example `spec.versions[0].schema.openAPIV3Schema`).
 */
export function structuralSchemaErrors(schema: unknown, path: string): FieldError[] {
  const v = new StructuralValidator();
  v.node(schema, path, { root: true });
  if (isRecord(schema)) v.metadata(schema, path);
  return v.errors;
}
