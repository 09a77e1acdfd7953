import { isQualifiedName } from '@svc/machinery';
import { canonicalQuantity, quantityNanoValue } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { STANDARD_QUOTA_RESOURCES } from '../../kinds/core/resource-quota';

/** Kubernetes' standardResources: the names a resource list may use without a `/` (quota's, and `storage`). */
const STANDARD_RESOURCES: ReadonlySet<string> = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);

/** Kubernetes' IsQuotaHugePageResourceName. */
export function isQuotaHugePageResourceName(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
}

/** Kubernetes' IsStandardResourceName. */
export function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
}

/** Kubernetes' validateResourceName: a qualified name, and a standard one unless it has a domain. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errors = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  if (errors.length > 0) return errors;
  if (!name.includes('/') && !isStandardResourceName(name)) errors.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errors;
}

/** Kubernetes' IsStandardContainerResourceName. */
function isStandardContainerResourceName(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
}

/** Kubernetes' validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardContainerResourceName(name)) errors.push(fieldErrors.invalid(path, name, 'must be a standard resource for containers'));
  return errors;
}

/** A quantity as Kubernetes prints it in an error (its canonical form), or as given when it is none. */
export function shownQuantity(value: unknown): string {
  return canonicalQuantity(value) ?? String(value);
}

/** Kubernetes' ValidateResourceQuantityValue: never negative, and whole for object counts. */
export function validateResourceQuantityValue(value: unknown, path: string, integer: boolean): FieldError[] {
  const nanos = quantityNanoValue(value);
  if (nanos === undefined) return [];
  const errors: FieldError[] = [];
  if (nanos < 0n) errors.push(fieldErrors.invalid(path, shownQuantity(value), 'must be greater than or equal to 0'));
  if (integer && nanos % 1_000_000_000n !== 0n) errors.push(fieldErrors.invalid(path, shownQuantity(value), 'must be an integer'));
  return errors;
}
