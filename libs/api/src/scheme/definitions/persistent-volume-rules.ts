import { isDNS1123Subdomain, isQualifiedName, isRecord, jsonEqual, validateLabelSelector } from '@svc/machinery';
import {
  PERSISTENT_VOLUME_SOURCES,
  PersistentVolumeAccessModes,
  PersistentVolumeModes,
  PersistentVolumeReclaimPolicies,
} from '../../kinds/core/persistent-volume';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../kinds/core/persistent-volume-claim';
import { quantityNanoValue } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { records } from './define-kind';
import { specOf, statusOf, storageOf } from './storage-rules';

/**
 * Kubernetes' validation of PersistentVolumes and PersistentVolumeClaims (pkg/apis/core/validation),
 * with the feature gates of 1.32: RecoverVolumeExpansionFailure on (a claim may shrink back towards
 * its status capacity), RetroactiveDefaultStorageClass on (a claim of no class may be given one once),
 * VolumeAttributesClass off (the field is dropped on create, and a set one may not change).
 */

/** dropDisabledVolumeAttributesClassName: with the feature off, a new value is dropped unless the stored object uses it. */
export function dropDisabledVolumeAttributesClass(spec: Record<string, unknown>, current: Record<string, unknown> | undefined): void {
  if (current?.volumeAttributesClassName !== undefined) return;
  delete spec.volumeAttributesClassName;
}

/**
 * NormalizeDataSources (AnyVolumeDataSource, GA): a claim that names its source the old way gets the
 * same in dataSourceRef, and one that names it the new way (in its own namespace) gets dataSource.
 */
export function normalizeDataSources(spec: Record<string, unknown>): void {
  const source = spec.dataSource;
  const ref = spec.dataSourceRef;
  const copy = (from: Record<string, unknown>) => {
    const out: Record<string, unknown> = { kind: from.kind, name: from.name };
    if (from.apiGroup !== undefined) out.apiGroup = from.apiGroup;
    return out;
  };
  if (isRecord(source) && ref === undefined) spec.dataSourceRef = copy(source);
  else if (isRecord(ref) && source === undefined && (typeof ref.namespace !== 'string' || ref.namespace === '')) spec.dataSource = copy(ref);
}

/** ValidatePersistentVolumeClaimUpdate/ValidatePersistentVolumeUpdate: a set class may not change with the feature off. */
function volumeAttributesClassUpdateErrors(spec: Record<string, unknown>, old: Record<string, unknown>): FieldError[] {
  if (jsonEqual(spec.volumeAttributesClassName, old.volumeAttributesClassName)) return [];
  return [fieldErrors.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled')];
}

/** A quantity in nano units, or undefined when absent or malformed (the schema reports those). */
function nanos(quantity: unknown): bigint | undefined {
  return quantity === undefined ? undefined : quantityNanoValue(quantity);
}

/** ValidateAccessModes (with ReadWriteOncePod exclusive, GA since 1.29). */
function accessModeErrors(modes: unknown, path: string): FieldError[] {
  const list = Array.isArray(modes) ? modes : [];
  if (list.length === 0) return [fieldErrors.required(path, 'at least 1 access mode is required')];
  const errors: FieldError[] = [];
  for (const mode of list) {
    if (!(PersistentVolumeAccessModes as readonly unknown[]).includes(mode))
      errors.push(fieldErrors.notSupported(path, mode, ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']));
  }
  if (list.includes('ReadWriteOncePod') && list.length > 1) errors.push(fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errors;
}

function volumeModeErrors(mode: unknown, path: string): FieldError[] {
  return mode !== undefined && !(PersistentVolumeModes as readonly unknown[]).includes(mode)
    ? [fieldErrors.notSupported(path, mode, PersistentVolumeModes)]
    : [];
}

function storageClassNameErrors(name: unknown, path: string): FieldError[] {
  return typeof name === 'string' && name !== '' ? isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid(path, name, msg)) : [];
}

/** validatePathNoBacksteps: a path with a `..` element could leave the directory it is relative to. */
export function backstepErrors(path: unknown, at: string): FieldError[] {
  if (typeof path !== 'string') return [];
  return path.split('/').includes('..') ? [fieldErrors.invalid(at, path, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: a path inside a volume, relative and never stepping out of it. */
export function localDescendingPathErrors(path: string, at: string): FieldError[] {
  const errors = path.startsWith('/') ? [fieldErrors.invalid(at, path, 'must be a relative path')] : [];
  return [...errors, ...backstepErrors(path, at)];
}

/** ValidateNodeSelectorRequirement. */
function nodeSelectorRequirementErrors(req: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const values = Array.isArray(req.values) ? req.values : [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errors.push(fieldErrors.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errors.push(fieldErrors.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errors.push(fieldErrors.required(`${at}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errors.push(fieldErrors.invalid(`${at}.operator`, req.operator, 'not a valid selector operator'));
  }
  if (typeof req.key === 'string') errors.push(...isQualifiedName(req.key).map((msg) => fieldErrors.invalid(`${at}.key`, req.key, msg)));
  return errors;
}

/** validateVolumeNodeAffinity: whether a selector is given, and what is wrong with it. */
function volumeNodeAffinityErrors(affinity: unknown, at: string): { specified: boolean; errors: FieldError[] } {
  if (!isRecord(affinity)) return { specified: false, errors: [] };
  if (!isRecord(affinity.required)) return { specified: false, errors: [fieldErrors.required(`${at}.required`, 'must specify required node constraints')] };
  const terms = records(affinity.required.nodeSelectorTerms);
  const errors: FieldError[] = [];
  if (terms.length === 0) errors.push(fieldErrors.required(`${at}.required.nodeSelectorTerms`, 'must have at least one node selector term'));
  terms.forEach((term, i) => {
    for (const list of ['matchExpressions', 'matchFields'] as const) {
      records(term[list]).forEach((req, j) => errors.push(...nodeSelectorRequirementErrors(req, `${at}.required.nodeSelectorTerms[${i}].${list}[${j}]`)));
    }
    records(term.matchFields).forEach((req, j) => {
      if (req.key !== 'metadata.name')
        errors.push(fieldErrors.invalid(`${at}.required.nodeSelectorTerms[${i}].matchFields[${j}].key`, req.key, 'not a valid field selector key'));
    });
  });
  return { specified: true, errors };
}

/** The sources a volume's spec names, in Kubernetes' order. */
export function persistentVolumeSources(spec: Record<string, unknown>): string[] {
  return PERSISTENT_VOLUME_SOURCES.filter((name) => spec[name] !== undefined && spec[name] !== null);
}

function absolutePathErrors(path: unknown, at: string): FieldError[] {
  if (typeof path !== 'string' || path === '') return [fieldErrors.required(at, '')];
  const errors = path.startsWith('/') ? [] : [fieldErrors.invalid(at, path, 'must be an absolute path')];
  return [...errors, ...backstepErrors(path, at)];
}

/** The checks of the one source a volume names that this server reads. */
function sourceErrors(name: string, source: unknown, at: string): FieldError[] {
  if (!isRecord(source)) return [];
  switch (name) {
    case 'hostPath':
      if (typeof source.path !== 'string' || source.path === '') return [fieldErrors.required(`${at}.path`, '')];
      return backstepErrors(source.path, `${at}.path`);
    case 'local':
      return absolutePathErrors(source.path, `${at}.path`);
    case 'nfs': {
      const errors = typeof source.server === 'string' && source.server !== '' ? [] : [fieldErrors.required(`${at}.server`, '')];
      return [...errors, ...absolutePathErrors(source.path, `${at}.path`)];
    }
    case 'csi': {
      const errors: FieldError[] = [];
      if (typeof source.driver !== 'string' || source.driver === '') errors.push(fieldErrors.required(`${at}.driver`, ''));
      if (typeof source.volumeHandle !== 'string' || source.volumeHandle === '') errors.push(fieldErrors.required(`${at}.volumeHandle`, ''));
      return errors;
    }
    default:
      return [];
  }
}

/** ValidatePersistentVolumeSpec (not inline): access modes, capacity, one source, node affinity. */
export function persistentVolumeSpecErrors(spec: Record<string, unknown>, at: string): FieldError[] {
  const errors = accessModeErrors(spec.accessModes, `${at}.accessModes`);
  const capacity = isRecord(spec.capacity) ? spec.capacity : {};
  if (Object.keys(capacity).length === 0) errors.push(fieldErrors.required(`${at}.capacity`, ''));
  if (capacity.storage === undefined || Object.keys(capacity).length > 1) errors.push(fieldErrors.notSupported(`${at}.capacity`, capacity, ['storage']));
  const size = nanos(capacity.storage);
  if (size !== undefined && size < 0n) errors.push(fieldErrors.invalid(`${at}.capacity[storage]`, capacity.storage, 'must be greater than or equal to 0'));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (typeof policy === 'string' && policy !== '' && !(PersistentVolumeReclaimPolicies as readonly string[]).includes(policy)) {
    errors.push(fieldErrors.notSupported(`${at}.persistentVolumeReclaimPolicy`, policy, PersistentVolumeReclaimPolicies));
  }
  errors.push(...storageClassNameErrors(spec.storageClassName, `${at}.storageClassName`));
  const affinity = volumeNodeAffinityErrors(spec.nodeAffinity, `${at}.nodeAffinity`);
  errors.push(...affinity.errors);
  const sources = persistentVolumeSources(spec);
  if (sources.length === 0) errors.push(fieldErrors.required(at, 'must specify a volume type'));
  sources.forEach((name, i) => {
    if (i > 0) errors.push(fieldErrors.forbidden(`${at}.${name}`, 'may not specify more than 1 volume type'));
    else errors.push(...sourceErrors(name, spec[name], `${at}.${name}`));
  });
  if (spec.local !== undefined && !affinity.specified) errors.push(fieldErrors.required(`${at}.nodeAffinity`, 'Local volume requires node affinity'));
  errors.push(...volumeModeErrors(spec.volumeMode, `${at}.volumeMode`));
  return errors;
}

/** ValidatePersistentVolume. */
export function validatePersistentVolume(pv: ApiObject): FieldError[] {
  const spec = specOf(pv);
  const errors = persistentVolumeSpecErrors(spec, 'spec');
  if (spec.persistentVolumeReclaimPolicy === 'Recycle' && isRecord(spec.hostPath) && typeof spec.hostPath.path === 'string') {
    const cleaned = spec.hostPath.path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
    if (cleaned === '/') errors.push(fieldErrors.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  return errors;
}

/** The fields of a volume's spec that are its source (Kubernetes' inlined PersistentVolumeSource). */
function sourceOf(spec: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(PERSISTENT_VOLUME_SOURCES.filter((name) => spec[name] !== undefined).map((name) => [name, spec[name]]));
}

/** ValidatePersistentVolumeUpdate: the source, the volume mode and a set node affinity cannot change. */
export function validatePersistentVolumeUpdate(pv: ApiObject, current: ApiObject): FieldError[] {
  const spec = specOf(pv);
  const old = specOf(current);
  const errors: FieldError[] = [];
  const source = sourceOf(spec);
  const oldSource = sourceOf(old);
  // A CSI volume may gain the secret its expansion needs (a volume made before the class named one).
  if (isRecord(source.csi) && isRecord(oldSource.csi) && oldSource.csi.controllerExpandSecretRef === undefined) {
    const csi: Record<string, unknown> = { ...oldSource.csi, controllerExpandSecretRef: source.csi.controllerExpandSecretRef };
    if (csi.controllerExpandSecretRef === undefined) delete csi.controllerExpandSecretRef;
    oldSource.csi = csi;
  }
  if (!jsonEqual(source, oldSource)) {
    errors.push(
      fieldErrors.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${specDiff(oldSource, source)}`),
    );
  }
  if (!jsonEqual(spec.volumeMode, old.volumeMode)) errors.push(fieldErrors.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  if (old.nodeAffinity !== undefined && !jsonEqual(spec.nodeAffinity, old.nodeAffinity)) {
    errors.push(fieldErrors.invalid('nodeAffinity', spec.nodeAffinity ?? null, 'field is immutable'));
  }
  errors.push(...volumeAttributesClassUpdateErrors(spec, old));
  return errors;
}

/** What changed between two specs, field by field, for the message of an immutable spec. */
function specDiff(old: Record<string, unknown>, next: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  return keys
    .filter((key) => !jsonEqual(old[key], next[key]))
    .map((key) => `  ${key}:\n-   ${JSON.stringify(old[key] ?? null)}\n+   ${JSON.stringify(next[key] ?? null)}`)
    .join('\n');
}

/** ValidatePersistentVolumeClaimSpec. */
export function persistentVolumeClaimSpecErrors(spec: Record<string, unknown>, at: string): FieldError[] {
  const errors = accessModeErrors(spec.accessModes, `${at}.accessModes`);
  if (spec.selector !== undefined) errors.push(...validateLabelSelector(spec.selector, `${at}.selector`));
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
  const storage = requests.storage;
  if (storage === undefined) {
    errors.push(fieldErrors.required(`${at}.resources[storage]`, ''));
  } else {
    const size = nanos(storage);
    if (size !== undefined && size <= 0n) errors.push(fieldErrors.invalid(`${at}.resources[storage]`, storage, 'must be greater than zero'));
  }
  errors.push(...storageClassNameErrors(spec.storageClassName, `${at}.storageClassName`));
  errors.push(...volumeModeErrors(spec.volumeMode, `${at}.volumeMode`));
  for (const field of ['dataSource', 'dataSourceRef'] as const) {
    const ref = spec[field];
    if (!isRecord(ref)) continue;
    if (typeof ref.name !== 'string' || ref.name === '') errors.push(fieldErrors.required(`${at}.${field}.name`, ''));
    if (typeof ref.kind !== 'string' || ref.kind === '') errors.push(fieldErrors.required(`${at}.${field}.kind`, ''));
    const group = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
    if (group === '' && ref.kind !== 'PersistentVolumeClaim' && typeof ref.kind === 'string' && ref.kind !== '') {
      errors.push(fieldErrors.invalid(`${at}.${field}`, ref.kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
    }
  }
  return errors;
}

/** ValidatePersistentVolumeClaim. */
export function validatePersistentVolumeClaim(pvc: ApiObject): FieldError[] {
  return persistentVolumeClaimSpecErrors(specOf(pvc), 'spec');
}

/**
 * ValidatePersistentVolumeClaimUpdate: a claim's spec is fixed once made, except that the volume
 * controller names its volume once, a claim of no class may be given one once (the retroactive
 * default), and a bound claim's storage request may grow, or shrink back while it stays above the
 * capacity its volume has (a failed expansion is recovered from).
 */
export function validatePersistentVolumeClaimUpdate(pvc: ApiObject, current: ApiObject): FieldError[] {
  const spec = specOf(pvc);
  const old = specOf(current);
  const next: Record<string, unknown> = structuredClone(spec);
  const prior: Record<string, unknown> = structuredClone(old);
  const errors: FieldError[] = [];
  if (typeof old.volumeName !== 'string' || old.volumeName === '') prior.volumeName = next.volumeName;
  const annotations = pvc.metadata?.annotations ?? {};
  const oldAnnotations = current.metadata?.annotations ?? {};
  if (classUpgradedFromAnnotation(oldAnnotations, annotations, old.storageClassName, spec.storageClassName)) {
    delete next.storageClassName;
  } else {
    if (annotations[BETA_STORAGE_CLASS_ANNOTATION] !== oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION]) {
      errors.push(
        fieldErrors.invalid(`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]`, annotations[BETA_STORAGE_CLASS_ANNOTATION] ?? '', 'field is immutable'),
      );
    }
    // RetroactiveDefaultStorageClass: a claim made before any default class may be given one.
    if (oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION] === undefined && old.storageClassName === undefined && typeof spec.storageClassName === 'string') {
      next.storageClassName = prior.storageClassName;
    }
  }
  const requestsOf = (s: Record<string, unknown>) => (isRecord(s.resources) && isRecord(s.resources.requests) ? s.resources.requests : undefined);
  if (statusOf(pvc).phase === 'Bound') {
    const requests = requestsOf(next);
    if (requests !== undefined) {
      const oldStorage = storageOf(requestsOf(old));
      if (oldStorage === undefined) delete requests.storage;
      else requests.storage = oldStorage;
    }
  }
  if (spec.volumeAttributesClassName !== undefined) next.volumeAttributesClassName = old.volumeAttributesClassName;
  for (const s of [next, prior]) if (s.volumeAttributesClassName === undefined) delete s.volumeAttributesClassName;
  if (!jsonEqual(withoutUndefined(next), withoutUndefined(prior))) {
    errors.push(
      fieldErrors.forbidden(
        'spec',
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${specDiff(prior, next)}`,
      ),
    );
  }
  const newSize = nanos(storageOf(requestsOf(spec))) ?? 0n;
  const oldSize = nanos(storageOf(requestsOf(old))) ?? 0n;
  const statusSize = nanos(storageOf(statusOf(current).capacity)) ?? 0n;
  if (newSize < oldSize && newSize <= statusSize) {
    errors.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  if (!jsonEqual(spec.volumeMode, old.volumeMode)) errors.push(fieldErrors.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  errors.push(...volumeAttributesClassUpdateErrors(spec, old));
  return errors;
}

/** validateStorageClassUpgradeFromAnnotation: the beta annotation moved to storageClassName, unchanged. */
function classUpgradedFromAnnotation(oldAnnotations: Record<string, string>, annotations: Record<string, string>, oldName: unknown, name: unknown): boolean {
  const oldValue = oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION];
  const value = annotations[BETA_STORAGE_CLASS_ANNOTATION];
  return oldValue !== undefined && oldName === undefined && typeof name === 'string' && name === oldValue && (value === undefined || value === oldValue);
}

function withoutUndefined(value: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
