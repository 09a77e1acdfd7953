import { isRecord } from '@svc/machinery';
import { canonicalQuantity } from '../../meta/quantity';
import type { ApiObject } from '../kind-definition';

/**
 * What the storage kinds' tables and rules share: Kubernetes' helpers of pkg/apis/core/helper and
 * pkg/apis/storage/util, read defensively (the objects may not match their schema yet).
 */

/** The short names of access modes in kubectl's order (GetAccessModesAsString): RWO, ROX, RWX, RWOP. */
const ACCESS_MODE_SHORT: ReadonlyArray<readonly [string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

export function accessModesCell(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  return ACCESS_MODE_SHORT.filter(([mode]) => list.includes(mode))
    .map(([, short]) => short)
    .join(',');
}

/** A quantity as Kubernetes prints it (its canonical form), `0` when absent. */
export function quantityCell(quantity: unknown): string {
  return canonicalQuantity(quantity) ?? (typeof quantity === 'string' && quantity !== '' ? quantity : '0');
}

export function specOf(obj: ApiObject | undefined): Record<string, unknown> {
  return obj && isRecord(obj.spec) ? obj.spec : {};
}

export function statusOf(obj: ApiObject | undefined): Record<string, unknown> {
  return obj && isRecord(obj.status) ? obj.status : {};
}

/** The class of a claim or volume: the beta annotation first, then storageClassName (GetPersistentVolume(Claim)Class). */
export function storageClassOf(obj: ApiObject): string {
  const beta = obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (beta !== undefined) return beta;
  const name = specOf(obj).storageClassName;
  return typeof name === 'string' ? name : '';
}

/** The storage (`resources.requests.storage`, `capacity.storage`) of a resource list, or undefined. */
export function storageOf(list: unknown): unknown {
  return isRecord(list) ? list.storage : undefined;
}

/** A string field's value, empty when absent or not a string. */
export function stringCell(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
