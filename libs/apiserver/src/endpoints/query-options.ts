import { PropagationPolicies, type PropagationPolicy } from '@svc/api';
import {
  fieldErrorMessage,
  fieldInvalid,
  fieldManagerFor,
  fieldNotSupported,
  META_GROUP,
  newBadRequest,
  newInvalid,
  validateFieldManager,
  type FieldError,
} from '@svc/machinery';
import { FIELD_VALIDATION_LEVELS, type FieldValidation } from '../registry/generic/field-validation';
import type { DeleteRequest, ListQuery, PatchOptions, WatchQuery } from '../registry/types';

/**
 * The query parameters of the verbs, parsed and checked: a malformed value is a 400 BadRequest (422
 * Invalid for the combinations Kubernetes validates as its options kinds), never ignored silently.
 */

const TRUE_VALUES = new Set(['true', '1']);
const FALSE_VALUES = new Set(['false', '0']);

/** `dryRun`: every value must be `All` (an empty value means no dry run). Unknown values are a 400. */
export function parseDryRun(values: readonly string[]): boolean {
  const given = values.filter((v) => v !== '');
  for (const value of given) {
    if (value !== 'All') throw newBadRequest(fieldErrorMessage(fieldNotSupported('dryRun', value, ['All'])));
  }
  return given.length > 0;
}

/** `fieldValidation`: Ignore, Warn (default) or Strict; anything else is a 400. */
export function parseFieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  const level = FIELD_VALIDATION_LEVELS.find((l) => l === value);
  if (level === undefined) throw newBadRequest(fieldErrorMessage(fieldNotSupported('fieldValidation', value, [...FIELD_VALIDATION_LEVELS])));
  return level;
}

/** A boolean parameter: `true`/`1`, `false`/`0`; absent is undefined; anything else is a 400. */
export function parseBoolean(params: URLSearchParams, name: string): boolean | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  const lower = value.toLowerCase();
  if (TRUE_VALUES.has(lower) || lower === '') return true;
  if (FALSE_VALUES.has(lower)) return false;
  throw newBadRequest(fieldErrorMessage(fieldInvalid(name, value, 'must be a boolean')));
}

/** An integer parameter; absent is undefined; anything else is a 400. */
export function parseInteger(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw newBadRequest(fieldErrorMessage(fieldInvalid(name, value, 'must be an integer')));
  }
  return Number(value);
}

function optional(params: URLSearchParams, name: string): string | undefined {
  return params.get(name) ?? undefined;
}

export function parseListQuery(params: URLSearchParams): ListQuery {
  // Parsed for its errors only: a list ends when it is written (the request deadline bounds it).
  parseInteger(params, 'timeoutSeconds');
  return {
    labelSelector: optional(params, 'labelSelector'),
    fieldSelector: optional(params, 'fieldSelector'),
    limit: parseInteger(params, 'limit'),
    continue: optional(params, 'continue'),
    resourceVersion: optional(params, 'resourceVersion'),
    resourceVersionMatch: optional(params, 'resourceVersionMatch'),
  };
}

export interface ParsedWatchQuery extends WatchQuery {
  timeoutSeconds?: number;
}

/** A watch's parameters; `pathName` (a watch of one object by path) narrows it by field selector. */
export function parseWatchQuery(params: URLSearchParams, pathName: string): ParsedWatchQuery {
  // Parsed for its errors only, as Kubernetes decodes a watch's ListOptions whole: a watch has no pages.
  parseInteger(params, 'limit');
  let fieldSelector = optional(params, 'fieldSelector');
  if (pathName !== '') {
    const byName = `metadata.name=${pathName.replace(/[\\,=]/g, (c) => `\\${c}`)}`;
    fieldSelector = fieldSelector ? `${fieldSelector},${byName}` : byName;
  }
  return {
    labelSelector: optional(params, 'labelSelector'),
    fieldSelector,
    resourceVersion: optional(params, 'resourceVersion'),
    resourceVersionMatch: optional(params, 'resourceVersionMatch'),
    allowWatchBookmarks: parseBoolean(params, 'allowWatchBookmarks'),
    sendInitialEvents: parseBoolean(params, 'sendInitialEvents'),
    timeoutSeconds: parseInteger(params, 'timeoutSeconds'),
  };
}

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * dryRun, fieldValidation, fieldManager (checked: printable, at most 128 bytes; 422 otherwise) and,
 * for patches, force. The field manager of a non-apply write defaults from the user agent; apply
 * takes only the parameter (the registry requires it).
 */
export function parseWriteOptions(params: URLSearchParams, userAgent: string | undefined, kind: OptionsKind, apply = false): PatchOptions {
  const dryRun = parseDryRun(params.getAll('dryRun'));
  const fieldValidation = parseFieldValidation(params.get('fieldValidation'));
  const given = params.get('fieldManager') ?? '';
  const errors = given === '' ? [] : validateFieldManager(given);
  if (errors.length > 0) throw invalidOptions(kind, errors);
  const options: PatchOptions = { dryRun, fieldValidation, fieldManager: apply ? given : fieldManagerFor(given || undefined, userAgent) };
  const force = parseBoolean(params, 'force');
  if (force !== undefined) options.force = force;
  return options;
}

export interface ParsedDelete {
  request: DeleteRequest;
  dryRun: boolean;
}

/**
 * DeleteOptions from the body when there is one (JSON or YAML already decoded), else from the query,
 * as Kubernetes reads them. 422 Invalid for an unknown propagationPolicy or one given together with
 * orphanDependents; 400 for malformed values.
 */
export function parseDeleteOptions(body: unknown, params: URLSearchParams): ParsedDelete {
  if (body !== undefined) return deleteOptionsFromBody(body);
  const propagationPolicy = params.get('propagationPolicy') ?? undefined;
  const parsed: ParsedDelete = {
    request: {
      propagationPolicy: checkPolicy(propagationPolicy),
      orphanDependents: parseBoolean(params, 'orphanDependents'),
      gracePeriodSeconds: parseInteger(params, 'gracePeriodSeconds'),
    },
    dryRun: parseDryRun(params.getAll('dryRun')),
  };
  checkPolicyAndOrphan(parsed.request);
  return parsed;
}

function deleteOptionsFromBody(body: unknown): ParsedDelete {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw newBadRequest('the request body must be a DeleteOptions object');
  const options = body as Record<string, unknown>;
  if (options.kind !== undefined && options.kind !== 'DeleteOptions') {
    throw newBadRequest(
      `the kind in the data (${typeof options.kind === 'string' ? options.kind : JSON.stringify(options.kind)}) does not match the expected kind (DeleteOptions)`,
    );
  }
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace))) {
    throw newBadRequest(fieldErrorMessage(fieldInvalid('gracePeriodSeconds', grace, 'must be an integer')));
  }
  const orphan = options.orphanDependents;
  if (orphan !== undefined && orphan !== null && typeof orphan !== 'boolean') {
    throw newBadRequest(fieldErrorMessage(fieldInvalid('orphanDependents', orphan, 'must be a boolean')));
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== null && typeof policy !== 'string') {
    throw newBadRequest(fieldErrorMessage(fieldInvalid('propagationPolicy', policy, 'must be a string')));
  }
  const dryRun = options.dryRun;
  if (dryRun !== undefined && dryRun !== null && (!Array.isArray(dryRun) || dryRun.some((v) => typeof v !== 'string'))) {
    throw newBadRequest(fieldErrorMessage(fieldInvalid('dryRun', dryRun, 'must be a list of strings')));
  }
  const preconditions = options.preconditions;
  const request: DeleteRequest = {
    propagationPolicy: checkPolicy(policy ?? undefined),
    orphanDependents: orphan ?? undefined,
    gracePeriodSeconds: grace ?? undefined,
  };
  if (typeof preconditions === 'object' && preconditions !== null) {
    const p = preconditions as Record<string, unknown>;
    request.preconditions = {
      uid: typeof p.uid === 'string' ? p.uid : undefined,
      resourceVersion: typeof p.resourceVersion === 'string' ? p.resourceVersion : undefined,
    };
  }
  checkPolicyAndOrphan(request);
  return { request, dryRun: parseDryRun((dryRun as string[] | null | undefined) ?? []) };
}

function checkPolicy(value: string | undefined): PropagationPolicy | undefined {
  if (value === undefined || value === '') return undefined;
  const policy = PropagationPolicies.find((p) => p === value);
  if (policy === undefined) throw invalidOptions('DeleteOptions', [fieldNotSupported('propagationPolicy', value, ['Foreground', 'Background', 'Orphan'])]);
  return policy;
}

function checkPolicyAndOrphan(request: DeleteRequest): void {
  if (request.propagationPolicy !== undefined && request.orphanDependents !== undefined) {
    throw invalidOptions('DeleteOptions', [
      fieldInvalid('propagationPolicy', request.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'),
    ]);
  }
}

function invalidOptions(kind: OptionsKind, errors: FieldError[]): Error {
  return newInvalid({ group: META_GROUP, kind }, '', errors);
}

/** `includeObject` of a Table: None, Metadata (default) or Object. */
export function parseIncludeObject(params: URLSearchParams): 'None' | 'Metadata' | 'Object' {
  const value = params.get('includeObject');
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw newBadRequest(fieldErrorMessage(fieldNotSupported('includeObject', value, ['None', 'Metadata', 'Object'])));
}
