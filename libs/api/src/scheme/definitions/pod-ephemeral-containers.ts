import { isRecord, jsonEqual } from '@svc/machinery';
import type { Pod } from '../../kinds/core/pod';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ExtraSubresource } from '../kind-strategy';
import type { ApiObject } from '../kind-definition';
import { as, records } from './define-kind';

/** The annotation a mirror of a static pod carries; such a pod takes no ephemeral containers. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * The container fields an ephemeral container may not set (Kubernetes keeps an allow list of the
 * others): a debug container serves nothing, is never probed, restarted or given resources.
 */
const FORBIDDEN_FIELDS = ['ports', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resources', 'resizePolicy', 'restartPolicy'] as const;

const isSet = (value: unknown): boolean =>
  value !== undefined && value !== null && !(isRecord(value) && Object.keys(value).length === 0) && !(Array.isArray(value) && value.length === 0);

/**
 * validateEphemeralContainers: a name unique across every container of the pod, a target that is one of
 * its containers or init containers, none of the fields a debug container may not have, no subPath.
 */
export function validateEphemeralContainers(spec: unknown, path: string): FieldError[] {
  if (!isRecord(spec)) return [];
  const list = records(spec.ephemeralContainers);
  if (list.length === 0) return [];
  const others = new Set<string>();
  for (const c of [...records(spec.containers), ...records(spec.initContainers)]) if (typeof c.name === 'string') others.add(c.name);
  const all = new Set(others);
  const volumes = new Set(records(spec.volumes).map((v) => v.name));
  const errors: FieldError[] = [];
  list.forEach((c, i) => {
    const at = `${path}.ephemeralContainers[${i}]`;
    if (typeof c.name === 'string') {
      if (all.has(c.name)) errors.push(fieldErrors.duplicate(`${at}.name`, c.name));
      else all.add(c.name);
    }
    if (typeof c.targetContainerName === 'string' && c.targetContainerName !== '' && !others.has(c.targetContainerName)) {
      errors.push(fieldErrors.notFound(`${at}.targetContainerName`, c.targetContainerName));
    }
    for (const field of FORBIDDEN_FIELDS) {
      if (isSet(c[field])) errors.push(fieldErrors.forbidden(`${at}.${field}`, 'cannot be set for an Ephemeral Container'));
    }
    records(c.volumeMounts).forEach((m, j) => {
      if (typeof m.name === 'string' && !volumes.has(m.name)) errors.push(fieldErrors.notFound(`${at}.volumeMounts[${j}].name`, m.name));
      if (typeof m.subPath === 'string' && m.subPath !== '')
        errors.push(fieldErrors.forbidden(`${at}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (typeof m.subPathExpr === 'string' && m.subPathExpr !== '')
        errors.push(fieldErrors.forbidden(`${at}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errors;
}

/** ValidatePodCreate: ephemeral containers come only through the subresource, to a pod that runs. */
export function validateNoEphemeralContainersOnCreate(obj: ApiObject): FieldError[] {
  const list = as<Pod>(obj).spec?.ephemeralContainers;
  return Array.isArray(list) && list.length > 0 ? [fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create')] : [];
}

/** The fields of a container that differ between two versions of it, for the refusal's message. */
function changedFields(old: Record<string, unknown>, next: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  return keys.filter((k) => !jsonEqual(old[k], next[k])).map((k) => `  ${k}: ${JSON.stringify(old[k] ?? null)} -> ${JSON.stringify(next[k] ?? null)}`);
}

/**
 * ValidatePodEphemeralContainersUpdate: a static pod's mirror takes none; an existing ephemeral
 * container may be neither removed nor changed (matched by name, as a patch may reorder the list).
 */
export function validateEphemeralContainersUpdate(object: ApiObject, current: ApiObject): FieldError[] {
  if (current.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
    return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
  }
  const next = new Map(records(as<Pod>(object).spec?.ephemeralContainers).map((c) => [String(c.name), c]));
  const errors: FieldError[] = [];
  for (const old of records(as<Pod>(current).spec?.ephemeralContainers)) {
    const name = String(old.name);
    const now = next.get(name);
    if (now === undefined) {
      errors.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    } else if (!jsonEqual(old, now)) {
      errors.push(
        fieldErrors.forbidden(
          `spec.ephemeralContainers[${name}]`,
          `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${changedFields(old, now).join('\n')}`,
        ),
      );
    }
  }
  return errors;
}

/**
 * Kubernetes' `pods/ephemeralcontainers`: GET answers the pod; a PUT or PATCH of the pod changes only
 * its `spec.ephemeralContainers` (dropNonEphemeralContainerUpdates: everything else stays as stored),
 * and only by additions.
 */
export const podEphemeralContainers: ExtraSubresource = {
  readable: true,
  updateOf(incoming, current) {
    const spec = isRecord(incoming.spec) ? incoming.spec : {};
    const currentSpec = isRecord(current.spec) ? current.spec : {};
    const next: ApiObject = {
      ...current,
      metadata: { ...current.metadata },
      spec: { ...currentSpec },
    };
    if (Array.isArray(spec.ephemeralContainers)) next.spec = { ...currentSpec, ephemeralContainers: spec.ephemeralContainers };
    else delete (next.spec as Record<string, unknown>).ephemeralContainers;
    const rv = incoming.metadata?.resourceVersion;
    if (rv !== undefined) next.metadata!.resourceVersion = rv;
    else delete next.metadata!.resourceVersion;
    return next;
  },
  resetFields: [['status']],
  validateUpdate: validateEphemeralContainersUpdate,
};
