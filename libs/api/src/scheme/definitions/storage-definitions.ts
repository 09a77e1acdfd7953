import { isRecord, isDNS1123Subdomain, isQualifiedName, jsonEqual } from '@svc/machinery';
import { CSIDriverSchema, FSGroupPolicies, VolumeLifecycleModes, type CSIDriver } from '../../kinds/storage/csi-driver';
import { CSINodeSchema, type CSINode } from '../../kinds/storage/csi-node';
import { CSIStorageCapacitySchema, type CSIStorageCapacity } from '../../kinds/storage/csi-storage-capacity';
import {
  BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION,
  IS_DEFAULT_STORAGE_CLASS_ANNOTATION,
  StorageClassReclaimPolicies,
  StorageClassSchema,
  VolumeBindingModes,
  type StorageClass,
} from '../../kinds/storage/storage-class';
import { VolumeAttachmentSchema, type VolumeAttachment } from '../../kinds/storage/volume-attachment';
import { quantityNanoValue } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';
import { persistentVolumeSpecErrors } from './persistent-volume-rules';
import { quantityCell } from './storage-rules';

/** The group of the storage kinds, served as storage.k8s.io too. */
const GROUP = 'storage.svc.io';

/** Whether a class is a default one (storageutil.IsDefaultAnnotation): the GA annotation, or the beta one. */
export function isDefaultStorageClass(obj: ApiObject): boolean {
  const annotations = obj.metadata?.annotations ?? {};
  return annotations[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || annotations[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true';
}

/**
 * The default class among `classes` (Kubernetes' GetDefaultClass): of several default ones, the newest
 * by creation time, then the first by name; undefined when none is a default.
 */
export function defaultStorageClassOf<T extends ApiObject>(classes: readonly T[]): T | undefined {
  const created = (c: ApiObject) => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
  const name = (c: ApiObject) => c.metadata?.name ?? '';
  return classes.filter(isDefaultStorageClass).sort((a, b) => created(b) - created(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))[0];
}

const MAX_PROVISIONER_PARAMETERS = 512;
const MAX_PROVISIONER_PARAMETERS_SIZE = 256 * 1024;

/** ValidateStorageClass. */
function validateStorageClass(obj: ApiObject): FieldError[] {
  const sc = as<StorageClass>(obj);
  const errors: FieldError[] = [];
  const provisioner = sc.provisioner;
  if (typeof provisioner !== 'string' || provisioner === '') errors.push(fieldErrors.required('provisioner', ''));
  else errors.push(...isQualifiedName(provisioner.toLowerCase()).map((msg) => fieldErrors.invalid('provisioner', provisioner, msg)));
  const parameters = isRecord(sc.parameters) ? sc.parameters : {};
  const keys = Object.keys(parameters);
  if (keys.length > MAX_PROVISIONER_PARAMETERS) errors.push(fieldErrors.tooLong('parameters', parameters, MAX_PROVISIONER_PARAMETERS));
  let size = 0;
  for (const key of keys) {
    if (key === '') errors.push(fieldErrors.invalid('parameters', key, 'field can not be empty.'));
    size += key.length + String(parameters[key]).length;
  }
  if (size > MAX_PROVISIONER_PARAMETERS_SIZE) errors.push(fieldErrors.tooLong('parameters', '', MAX_PROVISIONER_PARAMETERS_SIZE));
  if (sc.reclaimPolicy !== undefined && !(StorageClassReclaimPolicies as readonly string[]).includes(sc.reclaimPolicy)) {
    errors.push(fieldErrors.notSupported('reclaimPolicy', sc.reclaimPolicy, StorageClassReclaimPolicies));
  }
  if (sc.volumeBindingMode === undefined) errors.push(fieldErrors.required('volumeBindingMode', ''));
  else if (!(VolumeBindingModes as readonly string[]).includes(sc.volumeBindingMode)) {
    errors.push(fieldErrors.notSupported('volumeBindingMode', sc.volumeBindingMode, VolumeBindingModes));
  }
  (sc.allowedTopologies ?? []).forEach((term, i) => {
    const expressions = term.matchLabelExpressions ?? [];
    if (expressions.length === 0)
      errors.push(fieldErrors.required(`allowedTopologies[${i}].matchLabelExpressions`, 'must have at least one label requirement'));
    const seen = new Set<string>();
    expressions.forEach((req, j) => {
      const at = `allowedTopologies[${i}].matchLabelExpressions[${j}]`;
      errors.push(...isQualifiedName(req.key).map((msg) => fieldErrors.invalid(`${at}.key`, req.key, msg)));
      if (seen.has(req.key)) errors.push(fieldErrors.duplicate(`${at}.key`, req.key));
      seen.add(req.key);
      if ((req.values ?? []).length === 0) errors.push(fieldErrors.required(`${at}.values`, 'must specify as least one value'));
    });
  });
  return errors;
}

/** ValidateStorageClassUpdate: what its volumes were made with stays. */
function validateStorageClassUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const sc = as<StorageClass>(obj);
  const old = as<StorageClass>(current);
  const errors: FieldError[] = [];
  if (!jsonEqual(sc.parameters ?? {}, old.parameters ?? {})) errors.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errors.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy) errors.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (sc.volumeBindingMode !== old.volumeBindingMode) errors.push(fieldErrors.invalid('volumeBindingMode', sc.volumeBindingMode ?? null, 'field is immutable'));
  return errors;
}

/** Kubernetes' StorageClass (storage.k8s.io/v1). */
export const storageClassDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'StorageClass',
  resource: 'storageclasses',
  namespaced: false,
  shortNames: ['sc'],
  schema: StorageClassSchema,
  strategy: { validateUpdate: validateStorageClassUpdate },
  columns: [
    column('Name', 'string', (o) => `${o.metadata?.name ?? ''}${isDefaultStorageClass(o) ? ' (default)' : ''}`, {
      format: 'name',
      description:
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
    }),
    column('Provisioner', 'string', (o) => as<StorageClass>(o).provisioner ?? '', { description: 'provisioner indicates the type of the provisioner.' }),
    column('ReclaimPolicy', 'string', (o) => as<StorageClass>(o).reclaimPolicy ?? 'Delete', {
      description: 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.',
    }),
    column('VolumeBindingMode', 'string', (o) => as<StorageClass>(o).volumeBindingMode ?? 'Immediate', {
      description: 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used.',
    }),
    column('AllowVolumeExpansion', 'string', (o) => as<StorageClass>(o).allowVolumeExpansion ?? false, {
      description: 'allowVolumeExpansion shows whether the storage class allow volume expand.',
    }),
    ageColumn(),
  ],
  validationRules: [validateStorageClass],
});

/** ValidateCSIDriverName (validateCSIDriverName): a qualified name of at most 63 characters. */
function csiDriverNameErrors(name: unknown, at: string): FieldError[] {
  if (typeof name !== 'string' || name === '') return [fieldErrors.required(at, '')];
  if (name.length > 63) return [fieldErrors.tooLong(at, name, 63)];
  if (!/^[a-zA-Z0-9]/.test(name)) return [fieldErrors.invalid(at, name, 'must start with an alphanumeric character')];
  if (!/[a-zA-Z0-9]$/.test(name)) return [fieldErrors.invalid(at, name, 'must end with an alphanumeric character')];
  if (!/^[-.a-zA-Z0-9]*$/.test(name)) return [fieldErrors.invalid(at, name, 'must contain only alphanumeric characters, "-", "." or ""')];
  return [];
}

/** SetDefaults_CSIDriver: a driver that names no lifecycle mode serves persistent volumes. */
function defaultCSIDriver(obj: ApiObject): void {
  if (!isRecord(obj.spec)) return;
  const modes = obj.spec.volumeLifecycleModes;
  if (!Array.isArray(modes) || modes.length === 0) obj.spec.volumeLifecycleModes = ['Persistent'];
}

/** ValidateCSIDriver. */
function validateCSIDriver(obj: ApiObject): FieldError[] {
  // The name is a DNS subdomain (ValidateCSIDriverName of the storage group), as the schema checks.
  const spec = as<CSIDriver>(obj).spec ?? {};
  const errors: FieldError[] = [];
  // Kubernetes names attachRequired's path `attachedRequired`.
  if (spec.attachRequired === undefined) errors.push(fieldErrors.required('spec.attachedRequired', ''));
  for (const field of ['podInfoOnMount', 'storageCapacity', 'requiresRepublish'] as const) {
    if (spec[field] === undefined) errors.push(fieldErrors.required(`spec.${field}`, ''));
  }
  if (spec.fsGroupPolicy !== undefined && !(FSGroupPolicies as readonly string[]).includes(spec.fsGroupPolicy)) {
    errors.push(fieldErrors.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FSGroupPolicies));
  }
  (spec.volumeLifecycleModes ?? []).forEach((mode, i) => {
    if (!(VolumeLifecycleModes as readonly string[]).includes(mode))
      errors.push(fieldErrors.notSupported(`spec.volumeLifecycleModes[${i}]`, mode, VolumeLifecycleModes));
  });
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((request, i) => {
    if (audiences.has(request.audience)) errors.push(fieldErrors.duplicate(`spec.tokenRequests[${i}].audience`, request.audience));
    audiences.add(request.audience);
    if (request.expirationSeconds !== undefined && request.expirationSeconds < 600) {
      errors.push(
        fieldErrors.invalid(`spec.tokenRequests[${i}].expirationSeconds`, request.expirationSeconds, 'may not specify a duration less than 10 minutes'),
      );
    }
  });
  return errors;
}

/** ValidateCSIDriverUpdate: attachRequired and the lifecycle modes stay. */
function validateCSIDriverUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const spec = as<CSIDriver>(obj).spec ?? {};
  const old = as<CSIDriver>(current).spec ?? {};
  const errors: FieldError[] = [];
  if (spec.attachRequired !== old.attachRequired) errors.push(fieldErrors.invalid('spec.attachedRequired', spec.attachRequired ?? null, 'field is immutable'));
  if (!jsonEqual(spec.volumeLifecycleModes, old.volumeLifecycleModes)) {
    errors.push(fieldErrors.invalid('spec.volumeLifecycleModes', spec.volumeLifecycleModes ?? null, 'field is immutable'));
  }
  return errors;
}

const bool = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);

/** Kubernetes' CSIDriver (storage.k8s.io/v1). */
export const csiDriverDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'CSIDriver',
  resource: 'csidrivers',
  namespaced: false,
  schema: CSIDriverSchema,
  defaultHooks: [defaultCSIDriver],
  strategy: { validateUpdate: validateCSIDriverUpdate },
  columns: [
    nameColumn(),
    column('AttachRequired', 'boolean', (o) => bool(as<CSIDriver>(o).spec?.attachRequired, true), {
      description: 'attachRequired indicates this CSI volume driver requires an attach operation.',
    }),
    column('PodInfoOnMount', 'boolean', (o) => bool(as<CSIDriver>(o).spec?.podInfoOnMount, false), {
      description: 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.',
    }),
    column('StorageCapacity', 'boolean', (o) => bool(as<CSIDriver>(o).spec?.storageCapacity, false), {
      description:
        'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.',
    }),
    column(
      'TokenRequests',
      'string',
      (o) => {
        const requests = as<CSIDriver>(o).spec?.tokenRequests ?? [];
        return requests.length ? requests.map((r) => r.audience).join(',') : '<unset>';
      },
      { description: "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication." },
    ),
    column('RequiresRepublish', 'boolean', (o) => bool(as<CSIDriver>(o).spec?.requiresRepublish, false), {
      description:
        'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.',
    }),
    column(
      'Modes',
      'string',
      (o) => {
        const modes = as<CSIDriver>(o).spec?.volumeLifecycleModes ?? [];
        return modes.length ? modes.join(',') : '<none>';
      },
      { description: 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.' },
    ),
    ageColumn(),
  ],
  validationRules: [validateCSIDriver],
});

/** ValidateCSINode. */
function validateCSINode(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  (as<CSINode>(obj).spec?.drivers ?? []).forEach((driver, i) => {
    const at = `spec.drivers[${i}]`;
    errors.push(...csiDriverNameErrors(driver.name, `${at}.name`));
    if (names.has(driver.name)) errors.push(fieldErrors.duplicate(`${at}.name`, driver.name));
    names.add(driver.name);
    if (!driver.nodeID) errors.push(fieldErrors.required(`${at}.nodeID`, ''));
    else if (driver.nodeID.length > 256) errors.push(fieldErrors.tooLong(`${at}.nodeID`, driver.nodeID, 256));
    const keys = new Set<string>();
    (driver.topologyKeys ?? []).forEach((key, j) => {
      if (key === '') errors.push(fieldErrors.required(`${at}.topologyKeys[${j}]`, ''));
      else errors.push(...isQualifiedName(key).map((msg) => fieldErrors.invalid(`${at}.topologyKeys[${j}]`, key, msg)));
      if (keys.has(key)) errors.push(fieldErrors.duplicate(`${at}.topologyKeys[${j}]`, key));
      keys.add(key);
    });
    const count = driver.allocatable?.count;
    if (count !== undefined && count < 0) errors.push(fieldErrors.invalid(`${at}.allocatable.count`, count, 'must be greater than or equal to 0'));
  });
  return errors;
}

/** ValidateCSINodeUpdate: a driver, once registered, keeps its node ID, topology keys and allocatable. */
function validateCSINodeUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const drivers = as<CSINode>(obj).spec?.drivers ?? [];
  for (const old of as<CSINode>(current).spec?.drivers ?? []) {
    const i = drivers.findIndex((d) => d.name === old.name);
    if (i < 0) continue;
    const driver = drivers[i];
    if (driver.nodeID !== old.nodeID) errors.push(fieldErrors.invalid(`spec.drivers[${i}].nodeID`, driver.nodeID, 'field is immutable'));
    if (!jsonEqual(driver.topologyKeys ?? [], old.topologyKeys ?? [])) {
      errors.push(fieldErrors.invalid(`spec.drivers[${i}].topologyKeys`, driver.topologyKeys ?? null, 'field is immutable'));
    }
    if (!jsonEqual(driver.allocatable, old.allocatable))
      errors.push(fieldErrors.invalid(`spec.drivers[${i}].allocatable`, driver.allocatable ?? null, 'field is immutable'));
  }
  return errors;
}

/** Kubernetes' CSINode (storage.k8s.io/v1), written by a node's agent. */
export const csiNodeDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'CSINode',
  resource: 'csinodes',
  namespaced: false,
  schema: CSINodeSchema,
  strategy: { validateUpdate: validateCSINodeUpdate },
  columns: [
    nameColumn(),
    column('Drivers', 'integer', (o) => (as<CSINode>(o).spec?.drivers ?? []).length, {
      description: 'Drivers indicates the number of CSI drivers registered on the node',
    }),
    ageColumn(),
  ],
  validationRules: [validateCSINode],
});

/** ValidateCSIStorageCapacity. */
function validateCSIStorageCapacity(obj: ApiObject): FieldError[] {
  const capacity = as<CSIStorageCapacity>(obj);
  const errors: FieldError[] = [];
  const name = capacity.storageClassName;
  if (!name) errors.push(fieldErrors.required('storageClassName', ''));
  else errors.push(...isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid('storageClassName', name, msg)));
  for (const field of ['capacity', 'maximumVolumeSize'] as const) {
    const value = capacity[field];
    if (value === undefined) continue;
    const nano = quantityNanoValue(value);
    if (nano !== undefined && nano < 0n) errors.push(fieldErrors.invalid(field, value, 'must be greater than or equal to 0'));
  }
  return errors;
}

/** ValidateCSIStorageCapacityUpdate: the class and topology it is for stay. */
function validateCSIStorageCapacityUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const capacity = as<CSIStorageCapacity>(obj);
  const old = as<CSIStorageCapacity>(current);
  const errors: FieldError[] = [];
  if (capacity.storageClassName !== old.storageClassName) errors.push(fieldErrors.invalid('storageClassName', capacity.storageClassName, 'field is immutable'));
  if (!jsonEqual(capacity.nodeTopology, old.nodeTopology))
    errors.push(fieldErrors.invalid('nodeTopology', capacity.nodeTopology ?? null, 'field is immutable'));
  return errors;
}

/** Kubernetes' CSIStorageCapacity (storage.k8s.io/v1). */
export const csiStorageCapacityDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'CSIStorageCapacity',
  resource: 'csistoragecapacities',
  namespaced: true,
  schema: CSIStorageCapacitySchema,
  strategy: { validateUpdate: validateCSIStorageCapacityUpdate },
  columns: [
    nameColumn(),
    column('StorageClassName', 'string', (o) => as<CSIStorageCapacity>(o).storageClassName ?? '', {
      description: 'storageClassName represents the name of the StorageClass that the reported capacity applies to.',
    }),
    column('Capacity', 'string', (o) => (as<CSIStorageCapacity>(o).capacity === undefined ? '<unset>' : quantityCell(as<CSIStorageCapacity>(o).capacity)), {
      description:
        'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.',
    }),
    ageColumn(),
  ],
  validationRules: [validateCSIStorageCapacity],
});

/** ValidateVolumeAttachment (with the spec of an inline volume checked as a volume's). */
function validateVolumeAttachment(obj: ApiObject): FieldError[] {
  const spec = as<VolumeAttachment>(obj).spec ?? {};
  const errors = csiDriverNameErrors(spec.attacher, 'spec.attacher');
  const source = isRecord(spec.source) ? spec.source : {};
  const named = source.persistentVolumeName !== undefined;
  const inline = source.inlineVolumeSpec !== undefined;
  if (named === inline) errors.push(fieldErrors.invalid('spec.source', source, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  if (named && source.persistentVolumeName === '')
    errors.push(fieldErrors.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  if (inline && isRecord(source.inlineVolumeSpec)) {
    // An inline spec is a CSI volume translated from a pod's in-tree volume; it has no capacity of its own.
    errors.push(...persistentVolumeSpecErrors(source.inlineVolumeSpec, 'spec.source.inlineVolumeSpec').filter((e) => !e.field.endsWith('.capacity')));
  }
  if (!spec.nodeName) errors.push(fieldErrors.required('spec.nodeName', ''));
  else errors.push(...isDNS1123Subdomain(spec.nodeName).map((msg) => fieldErrors.invalid('spec.nodeName', spec.nodeName, msg)));
  return errors;
}

/** ValidateVolumeAttachmentUpdate: the spec is what was asked; only the attacher's status changes. */
function validateVolumeAttachmentUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const spec = as<VolumeAttachment>(obj).spec;
  return jsonEqual(spec, as<VolumeAttachment>(current).spec) ? [] : [fieldErrors.invalid('spec', spec, 'field is immutable')];
}

/** Kubernetes' VolumeAttachment (storage.k8s.io/v1), whose status the attacher writes. */
export const volumeAttachmentDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'VolumeAttachment',
  resource: 'volumeattachments',
  namespaced: false,
  subresources: { status: true },
  schema: VolumeAttachmentSchema,
  strategy: {
    // volumeAttachmentStrategy.PrepareForCreate: an empty status (attached false).
    prepareForCreate(attachment) {
      attachment.status = { attached: false };
    },
    validateUpdate: validateVolumeAttachmentUpdate,
    // Kubernetes' volumeAttachmentStrategy keeps no generation.
    tracksGeneration: false,
  },
  columns: [
    nameColumn(),
    column('Attacher', 'string', (o) => as<VolumeAttachment>(o).spec?.attacher ?? '', {
      description: 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().',
    }),
    column('PV', 'string', (o) => as<VolumeAttachment>(o).spec?.source?.persistentVolumeName ?? '', {
      description: 'persistentVolumeName represents the name of the persistent volume to attach.',
    }),
    column('Node', 'string', (o) => as<VolumeAttachment>(o).spec?.nodeName ?? '', {
      description: 'nodeName represents the node that the volume should be attached to.',
    }),
    column('Attached', 'boolean', (o) => as<VolumeAttachment>(o).status?.attached ?? false, {
      description:
        'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.',
    }),
    ageColumn(),
  ],
  validationRules: [validateVolumeAttachment],
});
