import { errorMessage, isRecord } from '@svc/machinery';
import { CustomResourceDefinitionSchema, type CustomResourceDefinition } from '../../kinds/apiextensions/custom-resource-definition';
import { schemaCompileError } from '../../schema/compile-kind';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { customResourceSchema } from '../crd-schema';
import { childSchemas } from './crd-subschemas';
import { parseJsonPath } from '../json-path';
import type { ApiObject } from '../kind-definition';
import { as, defineKind, records } from './define-kind';

/** The deepest nesting of schemas a custom resource's schema may have (real ones nest a few dozen). */
export const MAX_SCHEMA_NESTING = 128;

/** How many schemas deep a schema nests, counted without recursion; stops past the limit. */
export function schemaNestingDepth(schema: unknown, limit = MAX_SCHEMA_NESTING): number {
  let max = 0;
  const pending: Array<{ node: unknown; depth: number }> = [{ node: schema, depth: 1 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (!isRecord(node)) continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of childSchemas(node, '')) pending.push({ node: child.node, depth: depth + 1 });
  }
  return max;
}

function validateCrd(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(obj.spec)) return errors;
  const crd = as<CustomResourceDefinition>(obj);
  const { spec } = crd;
  const names = isRecord(spec.names) ? spec.names : undefined;
  if (names && typeof names.plural === 'string' && typeof spec.group === 'string') {
    const expected = `${names.plural}.${spec.group}`;
    if (crd.metadata?.name && crd.metadata.name !== expected) {
      errors.push(fieldErrors.invalid('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`));
    }
  }
  if (names && names.listKind !== undefined && names.listKind === names.kind) {
    errors.push(fieldErrors.invalid('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'));
  }
  const versions = records(spec.versions);
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (typeof v.name === 'string') {
      if (seen.has(v.name)) errors.push(fieldErrors.duplicate(`${at}.name`, v.name));
      seen.add(v.name);
    }
    if (v.storage === true) storage++;
    const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isRecord(schema)) {
      errors.push(fieldErrors.required(`${at}.schema.openAPIV3Schema`, 'schemas are required'));
    } else {
      if (schema.type !== 'object') errors.push(fieldErrors.notSupported(`${at}.schema.openAPIV3Schema.type`, schema.type, ['object']));
      if (schemaNestingDepth(schema) > MAX_SCHEMA_NESTING) {
        // The validator is generated code, one nested block per level: past this it overflows the stack.
        errors.push(fieldErrors.invalid(`${at}.schema.openAPIV3Schema`, '', `must not nest more than ${MAX_SCHEMA_NESTING} schemas deep`));
      } else {
        const problem = schemaCompileError(customResourceSchema(schema));
        if (problem) errors.push(fieldErrors.invalid(`${at}.schema.openAPIV3Schema`, '', problem));
      }
    }
    records(v.additionalPrinterColumns).forEach((c, j) => {
      try {
        if (typeof c.jsonPath === 'string') parseJsonPath(c.jsonPath);
      } catch (err) {
        errors.push(fieldErrors.invalid(`${at}.additionalPrinterColumns[${j}].jsonPath`, c.jsonPath, errorMessage(err)));
      }
    });
  });
  if (versions.length > 0 && storage !== 1) {
    errors.push(
      fieldErrors.invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  return errors;
}

/** SetDefaults_CustomResourceDefinitionSpec: the singular and list names follow from the kind. */
function defaultCrdNames(obj: ApiObject): void {
  const spec = isRecord(obj.spec) ? obj.spec : undefined;
  const names = spec && isRecord(spec.names) ? spec.names : undefined;
  if (!names || typeof names.kind !== 'string' || names.kind === '') return;
  if (names.singular === undefined || names.singular === '') names.singular = names.kind.toLowerCase();
  if (names.listKind === undefined || names.listKind === '') names.listKind = `${names.kind}List`;
}

/**
 * The CRD strategy's PrepareForCreate: the status starts with the storage version as the only stored
 * one, and empty accepted names (kind and plural are always serialized) until the controller accepts them.
 */
function initialCrdStatus(obj: ApiObject): void {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const storage = records(spec.versions).find((v) => v.storage === true);
  obj.status = { acceptedNames: { kind: '', plural: '' }, storedVersions: typeof storage?.name === 'string' ? [storage.name] : [] };
}

export const customResourceDefinitionDefinition = defineKind({
  group: 'apiextensions.svc.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: { status: true },
  schema: CustomResourceDefinitionSchema,
  strategy: { prepareForCreate: initialCrdStatus },
  defaultHooks: [defaultCrdNames],
  validationRules: [validateCrd],
});
