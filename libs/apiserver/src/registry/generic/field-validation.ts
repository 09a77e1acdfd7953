import type { CompiledKind } from '@svc/api';
import { newBadRequest, type FieldValidation } from '@svc/machinery';

export type { FieldValidation };

export const FIELD_VALIDATION_LEVELS: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

export interface FieldValidationOutcome {
  /** The `Warning` header texts (Warn level only). */
  warnings: string[];
  /** How many unknown fields were found (and pruned). */
  unknownCount: number;
}

/**
 * Prunes the fields the kind's schema does not declare (kept under preserve-unknown-fields) from `object`
 * in place, and reports them with the duplicated keys of the body as the level says: Ignore drops them
 * silently, Warn returns one warning each (`unknown field "spec.foo"`, `duplicate field "x"`), Strict
 * refuses the request with 400 `strict decoding error: ...` listing all.
 */
export function applyFieldValidation(
  compiled: CompiledKind,
  object: unknown,
  duplicateFields: readonly string[],
  level: FieldValidation,
): FieldValidationOutcome {
  const unknown = compiled.prune(object);
  if (level === 'Ignore' || (unknown.length === 0 && duplicateFields.length === 0)) return { warnings: [], unknownCount: unknown.length };
  const problems = [...unknown.map((path) => `unknown field "${path}"`), ...duplicateFields.map((path) => `duplicate field "${path}"`)];
  if (level === 'Strict') throw newBadRequest(`strict decoding error: ${problems.join(', ')}`);
  return { warnings: problems, unknownCount: unknown.length };
}
