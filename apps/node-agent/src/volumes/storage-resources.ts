import { persistentVolumeClaimDefinition, persistentVolumeDefinition, storageClassDefinition } from '@svc/api';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';
import { typedResource } from '@svc/client';

/** The storage kinds the agent reads and writes: claims and volumes it mounts and provisions, the classes it serves. */
export const STORAGE_RESOURCES = {
  persistentVolumeClaims: typedResource<PersistentVolumeClaim>(persistentVolumeClaimDefinition),
  persistentVolumes: typedResource<PersistentVolume>(persistentVolumeDefinition),
  storageClasses: typedResource<StorageClass>(storageClassDefinition),
};
