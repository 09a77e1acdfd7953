import { metaTime } from '@svc/machinery';
import { PersistentVolumeSchema, type PersistentVolume } from '../../kinds/core/persistent-volume';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { accessModesCell, quantityCell, specOf, statusOf, storageClassOf, storageOf, stringCell } from './storage-rules';
import { dropDisabledVolumeAttributesClass, validatePersistentVolume, validatePersistentVolumeUpdate } from './persistent-volume-rules';

/** A volume being deleted shows Terminating in place of its phase, as kubectl prints it. */
export function phaseCell(obj: ApiObject): string {
  if (obj.metadata?.deletionTimestamp) return 'Terminating';
  const phase = statusOf(obj).phase;
  return typeof phase === 'string' ? phase : '';
}

function claimCell(obj: ApiObject): string {
  const ref = as<PersistentVolume>(obj).spec?.claimRef;
  return ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
}

/** `<unset>` for an absent optional string, as kubectl prints a nil pointer of these columns. */
export function unsetCell(value: unknown): string {
  return typeof value === 'string' ? value : '<unset>';
}

/** Kubernetes' PersistentVolume (core v1): cluster-scoped storage a claim binds to. */
export const persistentVolumeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  resource: 'persistentvolumes',
  namespaced: false,
  shortNames: ['pv'],
  subresources: { status: true },
  schema: PersistentVolumeSchema,
  strategy: {
    // Kubernetes' persistentvolumeStrategy keeps no generation.
    tracksGeneration: false,
    // persistentvolumeStrategy.PrepareForCreate: a new volume is Pending, since now.
    prepareForCreate(pv) {
      pv.status = { phase: 'Pending', lastPhaseTransitionTime: metaTime() };
      dropDisabledVolumeAttributesClass(specOf(pv), undefined);
    },
    prepareForUpdate(pv, current) {
      dropDisabledVolumeAttributesClass(specOf(pv), specOf(current));
    },
    validateUpdate: validatePersistentVolumeUpdate,
    status: {
      // persistentvolumeStatusStrategy.PrepareForUpdate: a change of phase is stamped unless the writer stamped it.
      prepareForUpdate(pv, current) {
        const status = statusOf(pv);
        const old = statusOf(current);
        if (status.phase === old.phase) {
          if (status.lastPhaseTransitionTime === undefined && old.lastPhaseTransitionTime !== undefined)
            status.lastPhaseTransitionTime = old.lastPhaseTransitionTime;
        } else if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === old.lastPhaseTransitionTime) {
          status.lastPhaseTransitionTime = metaTime();
        }
        pv.status = status;
      },
    },
  },
  fieldSelectors: { name: (o) => o.metadata?.name ?? '' },
  columns: [
    nameColumn(),
    column('Capacity', 'string', (o) => quantityCell(storageOf(specOf(o).capacity)), {
      description: "capacity is the description of the persistent volume's resources and capacity.",
    }),
    column('Access Modes', 'string', (o) => accessModesCell(specOf(o).accessModes), {
      description: 'accessModes contains all ways the volume can be mounted.',
    }),
    column('Reclaim Policy', 'string', (o) => stringCell(specOf(o).persistentVolumeReclaimPolicy), {
      description: 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    }),
    column('Status', 'string', phaseCell, { description: 'phase indicates if a volume is available, bound to a claim, or released by a claim.' }),
    column('Claim', 'string', claimCell, { description: 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.' }),
    column('StorageClass', 'string', storageClassOf, { description: 'StorageClass of the pv' }),
    column('VolumeAttributesClass', 'string', (o) => unsetCell(specOf(o).volumeAttributesClassName), { description: 'VolumeAttributesClass of the pv' }),
    column('Reason', 'string', (o) => stringCell(statusOf(o).reason), {
      description: 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    }),
    ageColumn(),
    column('VolumeMode', 'string', (o) => unsetCell(specOf(o).volumeMode), {
      priority: 1,
      description: 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
    }),
  ],
  validationRules: [validatePersistentVolume],
});
