import { NODE_LEASE_NAMESPACE, type ApiObject } from '@svc/api';
import { jsonEqual, newForbidden, newNotFound, sameGroup } from '@svc/machinery';
import { nodeNameOf } from '../auth/node/node-authorizer';
import { podReferences } from '../auth/node/node-graph';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import type { CoreObjectLookup } from './service-account';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** Labels under this prefix are for administrators to place workloads on trusted nodes: a node never sets them. */
const NODE_RESTRICTION_LABEL_PREFIX = 'node-restriction.kubernetes.io/';
// The kubernetes.io and k8s.io labels a node agent may set on its own Node (Kubernetes' kubelet label allow list).
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/**
 * Kubernetes' NodeRestriction admission plugin: a node agent (`system:node:<name>` in `system:nodes`)
 * may write only its own Node (not its taints on update, not restricted labels), its own Lease in
 * svc-node-lease, mirror pods bound to itself, and the status of and deletion of pods bound to it;
 * the service account tokens it requests must be bound to a pod bound to it. Everyone else passes
 * untouched. It complements the Node authorizer, which cannot see request bodies.
 */
export function nodeRestriction(pods?: CoreObjectLookup): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    validate(a: AdmissionAttributes): void | Promise<void> {
      const user = a.user;
      if (user === undefined) return;
      const node = nodeNameOf(user);
      if (node === undefined) return;
      const group = a.definition.group;
      const resource = a.definition.resource;
      if (node === '') throw forbidden(a, 'could not determine node from user');
      if (sameGroup(group, '') && resource === 'pods') return admitPod(node, a);
      if (sameGroup(group, '') && resource === 'nodes') return admitNode(node, a);
      if (sameGroup(group, 'coordination.k8s.io') && resource === 'leases') return admitLease(node, a);
      if (sameGroup(group, '') && resource === 'serviceaccounts') return admitServiceAccountToken(node, a, pods);
      if (sameGroup(group, '') && resource === 'persistentvolumeclaims' && a.subresource === 'status') return admitClaimStatus(node, a);
      if (sameGroup(group, 'storage.k8s.io') && resource === 'csinodes') return admitCSINode(node, a);
    },
  };
}

function forbidden(a: AdmissionAttributes, message: string) {
  const name = a.name || (a.object?.metadata?.name ?? '');
  return newForbidden({ group: a.definition.group, resource: a.definition.resource }, name, message);
}

function nodeNameOfPod(pod: ApiObject | undefined): string {
  const spec = (pod?.spec ?? {}) as { nodeName?: unknown };
  return typeof spec.nodeName === 'string' ? spec.nodeName : '';
}

function admitPod(node: string, a: AdmissionAttributes): void {
  if (a.subresource === 'status') {
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation ${a.operation}`);
    if (nodeNameOfPod(a.oldObject) !== node) throw forbidden(a, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    return;
  }
  if (a.subresource === 'eviction') return;
  if (a.subresource !== '') throw forbidden(a, `unexpected subresource "${a.subresource}" of pods for node "${node}"`);
  switch (a.operation) {
    case 'CREATE':
      return admitMirrorPod(node, a);
    case 'DELETE':
      if (nodeNameOfPod(a.oldObject ?? a.object) !== node) throw forbidden(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    default:
      throw forbidden(a, `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  }
}

function admitMirrorPod(node: string, a: AdmissionAttributes): void {
  const pod = a.object ?? {};
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    throw forbidden(a, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  }
  if (nodeNameOfPod(pod) !== node) throw forbidden(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = (pod.metadata?.ownerReferences ?? []) as Array<{ apiVersion?: string; kind?: string; name?: string; controller?: boolean }>;
  if (owners.length > 1) throw forbidden(a, `node "${node}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 1) {
    const owner = owners[0];
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node || owner.controller !== true) {
      throw forbidden(a, `node "${node}" can only create pods with an owner reference set to itself`);
    }
  }
  // A mirror pod reflects a static manifest: it may not pull other objects into the node's reach.
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const kinds = new Set([...podReferences(a.namespace, pod.metadata?.name ?? '', spec)].map((ref) => ref.slice(0, ref.indexOf('/'))));
  for (const [kind, what] of [
    ['serviceaccounts', 'a service account'],
    ['secrets', 'secrets'],
    ['configmaps', 'configmaps'],
    ['persistentvolumeclaims', 'persistentvolumeclaims'],
  ] as const) {
    if (kinds.has(kind)) throw forbidden(a, `node "${node}" can not create pods that reference ${what}`);
  }
}

function admitNode(node: string, a: AdmissionAttributes): void {
  const requested = a.operation === 'CREATE' && a.subresource === '' ? (a.object?.metadata?.name ?? a.name) : a.name;
  if (requested !== node) throw forbidden(a, `node "${node}" is not allowed to modify node "${requested}"`);
  if (a.subresource !== '' || a.operation === 'DELETE') return;
  const labels = a.object?.metadata?.labels ?? {};
  if (a.operation === 'CREATE') {
    const refused = Object.keys(labels).filter(restrictedLabel).sort();
    if (refused.length > 0) throw forbidden(a, `node "${node}" is not allowed to set the following labels: ${refused.join(', ')}`);
    return;
  }
  if (a.operation === 'UPDATE') {
    const old = a.oldObject?.metadata?.labels ?? {};
    const changed = [...new Set([...Object.keys(labels), ...Object.keys(old)])].filter((k) => restrictedLabel(k) && labels[k] !== old[k]).sort();
    if (changed.length > 0) throw forbidden(a, `node "${node}" is not allowed to modify labels: ${changed.join(', ')}`);
    const taints = JSON.stringify((a.object?.spec as { taints?: unknown } | undefined)?.taints ?? []);
    const oldTaints = JSON.stringify((a.oldObject?.spec as { taints?: unknown } | undefined)?.taints ?? []);
    if (taints !== oldTaints) throw forbidden(a, `node "${node}" is not allowed to modify taints`);
  }
}

/** A label a node may not set on itself: node-restriction ones, and kubernetes.io/k8s.io ones outside the kubelet's list. */
function restrictedLabel(key: string): boolean {
  if (key.startsWith(NODE_RESTRICTION_LABEL_PREFIX)) return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  const kubernetesDomain = ['kubernetes.io', 'k8s.io'].some((d) => domain === d || domain.endsWith(`.${d}`));
  if (!kubernetesDomain) return false;
  if (KUBELET_LABELS.has(key)) return false;
  return !KUBELET_LABEL_NAMESPACES.some((d) => domain === d || domain.endsWith(`.${d}`));
}

function admitLease(node: string, a: AdmissionAttributes): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbidden(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
  const name = a.operation === 'CREATE' ? (a.object?.metadata?.name ?? a.name) : a.name;
  if (name !== node) throw forbidden(a, 'can only access node lease with the same name as the requesting node');
}

/**
 * admitPVCStatus: a node updates only what it learns expanding a claim's filesystem (the capacity, the
 * conditions, the allocated resources and their statuses); nothing of the claim's metadata or spec.
 */
function admitClaimStatus(node: string, a: AdmissionAttributes): void {
  if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation "${a.operation}"`);
  const strip = (claim: ApiObject | undefined): unknown => {
    const copy = structuredClone(claim ?? {});
    if (copy.metadata) {
      delete copy.metadata.resourceVersion;
      delete copy.metadata.managedFields;
    }
    const status = (copy.status ?? {}) as Record<string, unknown>;
    for (const field of ['capacity', 'conditions', 'allocatedResources', 'allocatedResourceStatuses']) delete status[field];
    return copy;
  };
  if (!jsonEqual(strip(a.oldObject), strip(a.object))) {
    throw forbidden(a, `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
  }
}

/** admitCSINode: a node writes only the CSINode of its own name. */
function admitCSINode(node: string, a: AdmissionAttributes): void {
  const name = a.operation === 'CREATE' ? (a.object?.metadata?.name ?? a.name) : a.name;
  if (name !== node) throw forbidden(a, 'can only access CSINode with the same name as the requesting node');
}

/** A token a node requests must be bound to a pod, by uid, that is bound to that node. */
async function admitServiceAccountToken(node: string, a: AdmissionAttributes, pods: CoreObjectLookup | undefined): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  const spec = (a.object?.spec ?? {}) as { boundObjectRef?: { apiVersion?: unknown; kind?: unknown; name?: unknown; uid?: unknown } | null };
  const ref = spec.boundObjectRef;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || typeof ref.name !== 'string' || ref.name === '') {
    throw forbidden(a, 'node requested token not bound to a pod');
  }
  if (typeof ref.uid !== 'string' || ref.uid === '') throw forbidden(a, 'node requested token with a pod binding without a uid');
  const pod = pods ? await pods(a.namespace, ref.name) : undefined;
  if (pod === undefined) throw newNotFound({ group: '', resource: 'pods' }, ref.name);
  if (pod.metadata?.uid !== ref.uid) {
    throw forbidden(
      a,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (nodeNameOfPod(pod) !== node) throw forbidden(a, 'node requested token bound to a pod scheduled on a different node');
}
