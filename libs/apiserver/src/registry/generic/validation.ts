import { kindDecodeError, type ApiObject } from '@svc/api';
import { fieldErrorsMessage, fieldInvalid, isValidPathSegmentName, newBadRequest, newInvalid, type FieldError } from '@svc/machinery';
import { applyFieldValidation } from './field-validation';
import { writeStep, type WriteStep } from './stepper';
import type { Store } from './store';
import type { WriteState } from './write-state';

/**
 * Schema errors and the kind's rules: 422 Invalid listing each field. A value of the wrong type in a
 * built-in kind, or next to an unknown field, is a 400 BadRequest instead, as Kubernetes answers a
 * body it cannot decode into the kind.
 */
export function validateObject(store: Store, object: ApiObject, extra: FieldError[], w: WriteState, current?: ApiObject): void {
  const errors = [...extra, ...store.compiled.validate(object, current)];
  const name = object.metadata?.name ?? '';
  for (const message of name ? isValidPathSegmentName(name) : []) errors.push(fieldInvalid('metadata.name', name, message));
  if (errors.length === 0) {
    strategyWarnings(store, object, w, current);
    return;
  }
  const def = store.definition;
  // Kubernetes decodes a built-in kind's body (a custom resource's metadata) into its Go struct
  // before anything else: a value Go cannot hold there is the answer, in Go's words, whatever else
  // the body gets wrong.
  const decodeError = kindDecodeError(def, object);
  if (decodeError !== undefined) throw cannotBeHandled(store, decodeError);
  const typeErrors = errors.filter((e) => e.type === 'FieldValueTypeInvalid');
  if (typeErrors.length > 0 && (store.builtIn || w.unknownCount > 0)) throw cannotBeHandled(store, fieldErrorsMessage(typeErrors));
  throw newInvalid({ group: def.group, kind: def.kind }, name, errors);
}

/** Kubernetes' answer to a body that does not decode into the kind (transformDecodeError). */
function cannotBeHandled(store: Store, detail: string): Error {
  const def = store.definition;
  return newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${detail}`);
}

/** The kind's warnings about a valid write of the main resource, each given once however often the write is retried. */
function strategyWarnings(store: Store, object: ApiObject, w: WriteState, current: ApiObject | undefined): void {
  const strategy = store.definition.strategy;
  if (w.target !== '' || strategy.warnings === undefined) return;
  for (const warning of strategy.warnings(object, current)) if (!w.warnings.includes(warning)) w.warnings.push(warning);
}

/**
 * Kubernetes refuses a body with a field of the wrong type when it decodes it, before any step of a
 * write runs. Here the steps (metadata rules, defaulting hooks, the kind's strategy, admission) run
 * on decoded JSON, and one that reads a mistyped field (an object where a list belongs) throws a
 * TypeError: that write is answered with the body's type errors, as Kubernetes answers it, not a
 * 500. A TypeError on a well-typed body stays what it is, a defect.
 */
export function recoverTypeError(store: Store, w: WriteState, error: unknown): unknown {
  if (!(error instanceof TypeError) || w.subject === undefined) return error;
  try {
    validateObject(store, w.subject, [], w);
  } catch (refusal) {
    return refusal;
  }
  return error;
}

/** Field validation as the step of a write whose object is the decoded body (or what a patch made of it). */
export function fieldValidation(duplicates: readonly string[]): WriteStep<{ store: Store; w: WriteState; object: ApiObject }> {
  return writeStep('field validation', ({ store, w, object }) => validateFields(store, object, duplicates, w));
}

/** Field validation of a decoded body (unknown and duplicate fields): its warnings join the write's. */
export function validateFields(store: Store, object: ApiObject, duplicates: readonly string[], w: WriteState): void {
  let outcome;
  try {
    outcome = applyFieldValidation(store.compiled, object, duplicates, w.options.fieldValidation ?? 'Warn');
  } catch (refusal) {
    // Go's decoder keeps a type error ahead of the strict errors it gathers on the way.
    const decodeError = kindDecodeError(store.definition, object);
    throw decodeError === undefined ? refusal : cannotBeHandled(store, decodeError);
  }
  for (const warning of outcome.warnings) w.warnings.push(warning);
  w.unknownCount = outcome.unknownCount;
}
