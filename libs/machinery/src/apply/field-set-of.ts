import type { JsonSchema } from '../json-schema';
import { JsonObject } from '../patch';
import { FieldSet } from './field-set';
import { schemaTypesFor } from './schema-types';
import { stripServerManaged } from './server-fields';
import { toFieldSet } from './to-field-set';

/**
 * The fields an object (or apply configuration) sets, as its Apply entry would record them:
 * server-managed fields left out. Throws an Error for list items without usable keys.
 */
export function fieldSetOf(object: JsonObject, schema?: JsonSchema): FieldSet {
  return stripServerManaged(toFieldSet(object, schemaTypesFor(schema).root()));
}
