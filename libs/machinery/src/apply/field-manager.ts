import { FieldError, fieldInvalid, fieldRequired, fieldTooLong } from '../field-errors';
import { isJsonObject } from '../patch';

/** Longest field manager name, in UTF-8 bytes. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** Longest subresource name in a managedFields entry. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function isPrintable(ch: string): boolean {
  return PRINTABLE.test(ch);
}

/**
 * The default field manager of a non-apply write: the user agent up to its first `/`
 * (`kubectl/v1.25.0 (linux/amd64)` gives `kubectl`), without unprintable characters, cut to
 * FIELD_MANAGER_MAX_LENGTH bytes.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!isPrintable(ch)) continue;
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** The request's `fieldManager` if given, else the user agent's prefix. */
export function fieldManagerFor(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}

/**
 * Kubernetes' ValidateFieldManager: at most 128 bytes, printable characters only. With
 * `required` (apply), an empty name is an error too. Errors use `path` (default `fieldManager`).
 */
export function validateFieldManager(fieldManager: string, options: { required?: boolean; path?: string } = {}): FieldError[] {
  const path = options.path ?? 'fieldManager';
  const errors: FieldError[] = [];
  if (options.required && fieldManager.length === 0) {
    errors.push(fieldRequired(path, 'is required for apply patch'));
    return errors;
  }
  if (Buffer.byteLength(fieldManager, 'utf8') > FIELD_MANAGER_MAX_LENGTH) errors.push(fieldTooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    if (!isPrintable(ch)) {
      const cp = ch.codePointAt(0)!;
      const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push(fieldInvalid(path, fieldManager, `invalid character ${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch, 'utf8');
  }
  return errors;
}

/**
 * Kubernetes' ValidateManagedFields for `metadata.managedFields` written directly: operation
 * `Apply` or `Update`, fieldsType `FieldsV1` when given, a valid manager, a short subresource.
 */
export function validateManagedFields(managedFields: unknown, path = 'metadata.managedFields'): FieldError[] {
  if (managedFields === undefined || managedFields === null) return [];
  if (!Array.isArray(managedFields)) return [fieldInvalid(path, managedFields, 'must be a list')];
  const errors: FieldError[] = [];
  managedFields.forEach((entry: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isJsonObject(entry)) {
      errors.push(fieldInvalid(at, entry, 'must be an object'));
      return;
    }
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      errors.push(fieldInvalid(`${at}.operation`, entry.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (entry.fieldsType !== undefined && entry.fieldsType !== '' && entry.fieldsType !== 'FieldsV1') {
      errors.push(fieldInvalid(`${at}.fieldsType`, entry.fieldsType, 'must be `FieldsV1`'));
    }
    const manager = typeof entry.manager === 'string' ? entry.manager : '';
    for (const error of validateFieldManager(manager, { path: `${at}.manager` })) errors.push(error);
    const subresource = typeof entry.subresource === 'string' ? entry.subresource : '';
    if (subresource.length > MAX_SUBRESOURCE_NAME_LENGTH) errors.push(fieldTooLong(`${at}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errors;
}

/** Rule 11: a list holding exactly one empty entry asks to clear managedFields; an empty list does not. */
export function isResetManagedFields(managedFields: unknown): boolean {
  if (!Array.isArray(managedFields) || managedFields.length !== 1) return false;
  const [entry] = managedFields as unknown[];
  if (!isJsonObject(entry)) return false;
  return Object.values(entry).every((v) => v === undefined || v === null || v === '' || (isJsonObject(v) && Object.keys(v).length === 0));
}
