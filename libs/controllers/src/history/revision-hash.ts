import type { ControllerRevision } from '@svc/api';
import { controllerReference, type MetaObject } from '@svc/runtime';
import { canonicalJson, fnv32, safeEncodeString } from '../common/object-hash';

/** The label a ControllerRevision carries with the hash of its data (Kubernetes' ControllerRevisionHashLabel). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/** The kind a controller reference names (objects read from a cache may lack theirs). */
export interface OwnerKind {
  apiVersion: string;
  kind: string;
}

/** The longest owner name kept in a revision's name, so that `<owner>-<hash>` fits in 253 characters. */
const MAX_PREFIX = 223;

/** `<prefix>-<hash>`, the prefix cut to 223 characters (Kubernetes' ControllerRevisionName). */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_PREFIX ? prefix.slice(0, MAX_PREFIX) : prefix}-${hash}`;
}

/**
 * Kubernetes' HashControllerRevision: FNV-1 (32 bits, Go's fnv.New32, not the 1a variant the
 * pod-template-hash uses) of the revision's data as JSON, then of the decimal collision count when
 * one is given, the sum written in decimal and safe-encoded. The data is written with sorted keys,
 * as Go marshals the map a controller builds its patch in, so equal data always hashes alike.
 */
export function hashControllerRevision(data: unknown, collisionCount?: number): string {
  let hash = fnv32(Buffer.from(data === undefined ? '' : canonicalJson(data), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) hash = fnv32(Buffer.from(String(collisionCount), 'utf8'), hash);
  return safeEncodeString(String(hash));
}

/**
 * A new revision of `owner` (Kubernetes' NewControllerRevision): the template's labels plus the hash
 * label, `owner` as controller, `data` and `revision`, named `<owner>-<hash>` with the hash salted
 * by `collisionCount`. Not yet created: {@link ControllerHistory.create} renames it on a collision.
 */
export function newControllerRevision(
  owner: MetaObject,
  ownerKind: OwnerKind,
  templateLabels: Readonly<Record<string, string>> | undefined,
  data: Record<string, unknown>,
  revision: number,
  collisionCount?: number,
): ControllerRevision {
  const hash = hashControllerRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(owner.metadata?.name ?? '', hash),
      namespace: owner.metadata?.namespace,
      labels: { ...templateLabels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ownerReferences: [controllerReference(owner, ownerKind)],
    },
    data,
    revision,
  };
}
