import type { Pod, ReplicaSet } from '@svc/api';
import { isDNS1123Subdomain } from '@svc/machinery';
import { controllerReference } from '@svc/runtime';

/** The kind a controller reference names (objects from a list may lack their kind). */
export interface ControllerKind {
  apiVersion: string;
  kind: string;
}

/** A ReplicaSet's kind: the owner its pods name unless `rs` is a view of another kind. */
export const REPLICA_SET_KIND: ControllerKind = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };

/**
 * The generateName of the pods of a controller: `<name>-`, or the bare name when the dash would make
 * an invalid name prefix (Kubernetes' getPodsPrefix).
 */
export function podNamePrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  // A prefix is checked as a name with its trailing dash masked, as Kubernetes does.
  return isDNS1123Subdomain(`${controllerName}a`).length === 0 ? prefix : controllerName;
}

/** What a pod is made from: a controller with a pod template (a ReplicaSet, a StatefulSet, ...). */
export type TemplateOwner = Pick<ReplicaSet, 'metadata'> & { spec: Pick<ReplicaSet['spec'], 'template'> };

/**
 * A new pod of `rs`: the template's labels, annotations, finalizers and spec, a generated name, and
 * `rs` as controller owner (Kubernetes' GetPodFromTemplate). Nothing else of the template's metadata
 * is copied: the server names the pod and sets the rest.
 */
export function podFromTemplate(rs: TemplateOwner, owner: ControllerKind = REPLICA_SET_KIND): Pod {
  const template = rs.spec.template;
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: rs.metadata?.namespace,
      generateName: podNamePrefix(rs.metadata?.name ?? ''),
      labels: { ...meta.labels },
      ownerReferences: [controllerReference(rs, owner)],
    },
    spec: structuredClone(template.spec),
  };
  if (meta.annotations && Object.keys(meta.annotations).length > 0) pod.metadata!.annotations = { ...meta.annotations };
  if (meta.finalizers && meta.finalizers.length > 0) pod.metadata!.finalizers = [...meta.finalizers];
  return pod;
}
