import { errorMessage } from '../error-message';
import { JsonPatchError, Operation, Validator, applyOperation, getValueByPointer, validator } from 'fast-json-patch';
import { cloneJson, toPlainJson } from './json-tree';
import { JsonObject, JsonValue, isJsonObject } from './json-value';
import { PatchError, badRequest, invalid, tooLarge } from './patch-error';

/** Kubernetes refuses a JSON patch of more operations than this with 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** The default bound of what `copy` operations may add, together: Kubernetes' request body limit. */
export const DEFAULT_JSON_PATCH_COPY_LIMIT_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /**
   * The most bytes (as JSON) that all `copy` operations of one patch may add, as Kubernetes'
   * AccumulatedCopySizeLimit: each copy can double a document, so twenty of them would make a
   * kilobyte a gigabyte.
   */
  accumulatedCopySizeLimit?: number;
}

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
export function jsonPatch(original: JsonObject, patch: unknown, options: JsonPatchOptions = {}): JsonObject {
  if (Array.isArray(patch) && patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  const operations = checkOperations(patch);
  const copyLimit = options.accumulatedCopySizeLimit ?? DEFAULT_JSON_PATCH_COPY_LIMIT_BYTES;
  // The library's own document clone is shallow for values it inserts, so both sides are copied
  // here: the result shares nothing with either input.
  let document = toPlainJson(cloneJson(original, 'the object'));
  let copied = 0;
  for (let index = 0; index < operations.length; index++) {
    const operation = operations[index];
    try {
      if (operation.op === 'copy') {
        // Measured before the library clones the value, with a budget: the measure stops once over.
        const budget = copyLimit - copied;
        copied += jsonSizeWithin(getValueByPointer(document, operation.from) as JsonValue, budget + 1);
        if (copied > copyLimit) {
          throw invalid(`Unable to copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${copyLimit}`);
        }
      }
      document = applyOperation(document, operation, checkOperation, true, true, index).newDocument;
    } catch (error) {
      if (error instanceof PatchError) throw error;
      throw translate(error, operations, index);
    }
  }
  if (!isJsonObject(document)) {
    throw invalid('the JSON patch would replace the object with a value that is not a JSON object');
  }
  return document;
}

/**
 * The length of a value's JSON text, or a number above `budget` once it is known to be larger,
 * counted without recursion and without building the text.
 */
function jsonSizeWithin(value: JsonValue | undefined, budget: number): number {
  let size = 0;
  const pending: Array<JsonValue | undefined> = [value];
  while (pending.length > 0 && size <= budget) {
    const item = pending.pop();
    if (item === undefined || item === null) size += 4;
    else if (typeof item === 'string') size += item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') size += String(item).length;
    else if (Array.isArray(item)) {
      size += 2 + Math.max(0, item.length - 1);
      for (const child of item) pending.push(child);
    } else {
      const keys = Object.keys(item);
      size += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        size += key.length + 3;
        pending.push(item[key]);
      }
    }
  }
  return size;
}

/**
 * The library's checks, except where `move` and `copy` look for their source: the library replays a
 * read of `from` on a deep copy of the whole document, once per operation, so ten copies of a small
 * value into a megabyte object cloned ten megabytes. The same question is answered by walking the pointer.
 */
const checkOperation: Validator<JsonValue> = (operation, index, document, existingPath) => {
  if (operation.op !== 'move' && operation.op !== 'copy') return validator(operation, index, document, existingPath);
  validator(operation, index);
  if (!pointerResolves(document, operation.from)) {
    throw new JsonPatchError('Cannot perform the operation from a path that does not exist', 'OPERATION_FROM_UNRESOLVABLE', index, operation, document);
  }
};

/** Whether every step of a JSON pointer names a member or element that is present. */
function pointerResolves(document: JsonValue, pointer: string): boolean {
  if (pointer === '') return true;
  let node: JsonValue | undefined = document;
  const steps = pointer.split('/');
  for (let i = 1; i < steps.length; i++) {
    if (node === null || typeof node !== 'object') return false;
    const step = steps[i].replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(step)) return false;
      node = node[Number(step)];
    } else {
      node = Object.prototype.hasOwnProperty.call(node, step) ? node[step] : undefined;
    }
    if (node === undefined) return false;
  }
  return true;
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

// The library's own index is 0 for every failure its checks find, so the caller says which operation failed.
function translate(error: unknown, operations: Operation[], index: number): PatchError {
  if (error instanceof JsonPatchError) {
    const operation = operations[index];
    const where = operation ? `operation ${index} (${operation.op} ${operation.path})` : 'an operation';
    const message = `JSON patch ${where} failed: ${describe(error.name)}`;
    return MALFORMED.has(error.name) ? badRequest(message) : invalid(message);
  }
  // The library refuses paths through __proto__/constructor/prototype with a TypeError.
  const detail = errorMessage(error);
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
