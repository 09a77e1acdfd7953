import { JsonPatchError, Operation, applyPatch } from 'fast-json-patch';
import { cloneJson, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { PatchError, badRequest, invalid } from './patch-error';

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

// Errors that say the patch document itself is malformed; every other failure depends on the
// object being patched (missing path, failed test) and is answered as Invalid, as Kubernetes
// answers 422 when a decoded JSON patch fails to apply.
const MALFORMED = new Set([
  'SEQUENCE_NOT_AN_ARRAY',
  'OPERATION_NOT_AN_OBJECT',
  'OPERATION_OP_INVALID',
  'OPERATION_PATH_INVALID',
  'OPERATION_FROM_REQUIRED',
  'OPERATION_VALUE_REQUIRED',
  'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED',
]);

/** Applies an RFC 6902 JSON Patch; the inputs are left untouched. */
export function jsonPatch(original: JsonObject, patch: unknown): JsonObject {
  const operations = checkOperations(patch);
  // The library's own document clone is shallow for values it inserts, so both sides are copied
  // here: the result shares nothing with either input.
  const document = toPlainJson(cloneJson(original, 'the object'));
  let result: JsonValue;
  try {
    result = applyPatch(document, operations, true, true).newDocument as JsonValue;
  } catch (error) {
    throw translate(error, operations);
  }
  if (!isJsonObject(result)) {
    throw invalid('the JSON patch would replace the object with a value that is not a JSON object');
  }
  return result;
}

function checkOperations(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) {
    throw badRequest('a JSON patch must be a JSON array of operations');
  }
  patch.forEach((operation: unknown, index) => {
    if (!isJsonObject(operation)) {
      throw badRequest(`JSON patch operation ${index} is not a JSON object`);
    }
    const op = operation['op'];
    if (typeof op !== 'string' || !OPERATIONS.has(op)) {
      throw badRequest(`JSON patch operation ${index} has an unknown "op" ${JSON.stringify(op ?? null)}`);
    }
    if (typeof operation['path'] !== 'string') {
      throw badRequest(`JSON patch operation ${index} (${op}) has no "path" string`);
    }
    if ((op === 'move' || op === 'copy') && typeof operation['from'] !== 'string') {
      throw badRequest(`JSON patch operation ${index} (${op}) has no "from" string`);
    }
    if ((op === 'add' || op === 'replace' || op === 'test') && !('value' in operation)) {
      throw badRequest(`JSON patch operation ${index} (${op} ${operation['path']}) has no "value"`);
    }
  });
  return toPlainJson(cloneJson(patch, 'the JSON patch')) as unknown as Operation[];
}

function translate(error: unknown, operations: Operation[]): PatchError {
  if (error instanceof JsonPatchError) {
    const index = error.index ?? -1;
    const operation = operations[index];
    const where = operation ? `operation ${index} (${operation.op} ${operation.path})` : 'an operation';
    const message = `JSON patch ${where} failed: ${describe(error.name)}`;
    return MALFORMED.has(error.name) ? badRequest(message) : invalid(message);
  }
  // The library refuses paths through __proto__/constructor/prototype with a TypeError.
  const detail = error instanceof Error ? error.message : String(error);
  return badRequest(`JSON patch refused: ${detail}`);
}

function describe(name: string): string {
  switch (name) {
    case 'TEST_OPERATION_FAILED':
      return 'the value at the path is not the tested value';
    case 'OPERATION_PATH_UNRESOLVABLE':
      return 'the path does not exist in the object';
    case 'OPERATION_FROM_UNRESOLVABLE':
      return 'the "from" path does not exist in the object';
    case 'OPERATION_PATH_CANNOT_ADD':
      return 'the parent of the path does not exist in the object';
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      return 'the path uses an array index that is not a number';
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return 'the array index is out of bounds';
    case 'OPERATION_PATH_INVALID':
      return 'the path is not a JSON pointer';
    default:
      return name.toLowerCase().replace(/_/g, ' ');
  }
}
