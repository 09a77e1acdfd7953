import { PersistentVolumeClaimSchema } from '../../kinds/core/persistent-volume-claim';
import { ageColumn, column, nameColumn } from '../table';
import { defineKind } from './define-kind';
import { phaseCell, unsetCell } from './persistent-volume-definition';
import {
  dropDisabledVolumeAttributesClass,
  normalizeDataSources,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
} from './persistent-volume-rules';
import { accessModesCell, quantityCell, specOf, statusOf, storageClassOf, storageOf, stringCell } from './storage-rules';

/** Kubernetes' PersistentVolumeClaim (core v1): a namespace's request for storage. */
export const persistentVolumeClaimDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  resource: 'persistentvolumeclaims',
  namespaced: true,
  shortNames: ['pvc'],
  subresources: { status: true },
  schema: PersistentVolumeClaimSchema,
  strategy: {
    // Kubernetes' persistentvolumeclaimStrategy keeps no generation.
    tracksGeneration: false,
    // persistentvolumeclaimStrategy.PrepareForCreate: an empty status, which reads back as Pending.
    prepareForCreate(pvc) {
      pvc.status = { phase: 'Pending' };
      dropDisabledVolumeAttributesClass(specOf(pvc), undefined);
      normalizeDataSources(specOf(pvc));
    },
    prepareForUpdate(pvc, current) {
      dropDisabledVolumeAttributesClass(specOf(pvc), specOf(current));
    },
    validateUpdate: validatePersistentVolumeClaimUpdate,
  },
  fieldSelectors: { name: (o) => o.metadata?.name ?? '' },
  columns: [
    nameColumn(),
    column('Status', 'string', phaseCell, { description: 'phase represents the current phase of PersistentVolumeClaim.' }),
    column('Volume', 'string', (o) => stringCell(specOf(o).volumeName), {
      description: 'volumeName is the binding reference to the PersistentVolume backing this claim.',
    }),
    // The capacity and access modes are the bound volume's: blank until the claim names one.
    column('Capacity', 'string', (o) => (specOf(o).volumeName ? quantityCell(storageOf(statusOf(o).capacity)) : ''), {
      description: 'capacity represents the actual resources of the underlying volume.',
    }),
    column('Access Modes', 'string', (o) => (specOf(o).volumeName ? accessModesCell(statusOf(o).accessModes) : ''), {
      description: 'accessModes contains the actual access modes the volume backing the PVC has.',
    }),
    column('StorageClass', 'string', storageClassOf, { description: 'StorageClass of the pvc' }),
    column('VolumeAttributesClass', 'string', (o) => unsetCell(specOf(o).volumeAttributesClassName), { description: 'VolumeAttributesClass of the pvc' }),
    ageColumn(),
    column('VolumeMode', 'string', (o) => unsetCell(specOf(o).volumeMode), {
      priority: 1,
      description: 'volumeMode defines what type of volume is required by the claim.',
    }),
  ],
  validationRules: [validatePersistentVolumeClaim],
});
