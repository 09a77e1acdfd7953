import {
  defaultStorageClassOf,
  persistentVolumeClaimDefinition,
  persistentVolumeDefinition,
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
  quantityNanoValue,
  storageClassOf,
  BETA_STORAGE_CLASS_ANNOTATION,
  type ApiObject,
  type KindDefinition,
  type StorageClass,
} from '@svc/api';
import { isRecord, newForbidden } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admittedName } from './pod-admission';

/** What the storage plugins read of the StorageClasses. */
export interface StorageClassLookup {
  /** The class of that name as stored now; undefined when there is none. */
  get(name: string): Promise<StorageClass | undefined>;
  /** Every class (to find the default), possibly a moment old, as Kubernetes reads them from an informer. */
  list(): Promise<readonly StorageClass[]>;
}

/** No classes: a server without storage. */
export function noStorageClasses(): StorageClassLookup {
  return { get: () => Promise.resolve(undefined), list: () => Promise.resolve([]) };
}

/** Whether the request writes the main resource of `def`'s kind (under either of its group names). */
function writes(attributes: AdmissionAttributes, def: KindDefinition, operation: 'CREATE' | 'UPDATE'): boolean {
  const stored = attributes.definition.aliasOf ?? attributes.definition;
  return attributes.operation === operation && attributes.subresource === '' && stored.group === def.group && stored.resource === def.resource;
}

function refuse(attributes: AdmissionAttributes, message: string): Error {
  return newForbidden({ group: attributes.definition.group, resource: attributes.definition.resource }, admittedName(attributes), message);
}

/**
 * Kubernetes' DefaultStorageClass plugin (plugin/pkg/admission/storage/storageclass/setdefault): a new
 * claim that names no class (no storageClassName, no beta annotation; an empty name asks for none) gets
 * the default class; of several defaults, the newest, as Kubernetes picks. With no default it is left
 * without one, and the volume controller gives it one once a default exists.
 */
export function defaultStorageClassAdmission(classes: StorageClassLookup = noStorageClasses()): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    async admit(attributes) {
      if (!writes(attributes, persistentVolumeClaimDefinition, 'CREATE') || !attributes.object) return;
      const claim = attributes.object;
      const spec = isRecord(claim.spec) ? claim.spec : (claim.spec = {});
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      if (claim.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] !== undefined) return;
      const found = defaultStorageClassOf(await classes.list());
      const name = found?.metadata?.name;
      if (name !== undefined) spec.storageClassName = name;
    },
  };
}

function addFinalizer(object: ApiObject, finalizer: string): void {
  const metadata = (object.metadata ??= {});
  const finalizers = metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) metadata.finalizers = [...finalizers, finalizer];
}

/**
 * Kubernetes' StorageObjectInUseProtection plugin (plugin/pkg/admission/storage/storageobjectinuse):
 * every new claim and volume carries its protection finalizer, which the pvc-protection and
 * pv-protection controllers remove once no pod uses the claim, no claim is bound to the volume.
 */
export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    admit(attributes) {
      if (!attributes.object) return;
      if (writes(attributes, persistentVolumeClaimDefinition, 'CREATE')) addFinalizer(attributes.object, PVC_PROTECTION_FINALIZER);
      else if (writes(attributes, persistentVolumeDefinition, 'CREATE')) addFinalizer(attributes.object, PV_PROTECTION_FINALIZER);
    },
  };
}

function requestedStorage(claim: ApiObject | undefined): bigint {
  const spec = claim && isRecord(claim.spec) ? claim.spec : {};
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
  return quantityNanoValue(requests.storage) ?? 0n;
}

/**
 * Kubernetes' PersistentVolumeClaimResize plugin (plugin/pkg/admission/storage/persistentvolume/resize):
 * a claim's storage request may grow only once it is bound, and only when it keeps its class and that
 * class allows volume expansion.
 */
export function persistentVolumeClaimResize(classes: StorageClassLookup = noStorageClasses()): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    async validate(attributes) {
      if (!writes(attributes, persistentVolumeClaimDefinition, 'UPDATE') || !attributes.object || !attributes.oldObject) return;
      const claim = attributes.object;
      const old = attributes.oldObject;
      if (requestedStorage(claim) <= requestedStorage(old)) return;
      const phase = isRecord(old.status) ? old.status.phase : undefined;
      if (phase !== 'Bound') throw refuse(attributes, 'Only bound persistent volume claims can be expanded');
      const className = storageClassOf(claim);
      const oldClassName = storageClassOf(old);
      const allowed = className !== '' && className === oldClassName && (await classes.get(className).catch(() => undefined))?.allowVolumeExpansion === true;
      if (!allowed) {
        throw refuse(attributes, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      }
    },
  };
}
