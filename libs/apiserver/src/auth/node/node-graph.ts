/** The kinds of object a node may reach through the pods bound to it. */
export type NodeReachableKind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'persistentvolumes' | 'serviceaccounts' | 'volumeattachments';

interface PodEdges {
  node: string;
  /** `kind/namespace/name` of every object the pod references (no duplicates). */
  refs: string[];
}

/**
 * Kubernetes' node authorizer graph, reduced to what a lookup needs: which objects each node reaches
 * through the pods bound to it (their Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccount)
 * and the PersistentVolumes those claims are bound to, and the VolumeAttachments naming the node. Kept
 * up to date from pod, claim and attachment events; a question is a few map lookups, never a scan.
 */
export class NodeGraph {
  private readonly pods = new Map<string, PodEdges>();
  // `kind/namespace/name` -> node -> how many of that node's pods reference it.
  private readonly reached = new Map<string, Map<string, number>>();
  // claim `namespace/name` -> the volume it is bound to, and volume -> its claims.
  private readonly claimVolume = new Map<string, string>();
  private readonly volumeClaims = new Map<string, Set<string>>();
  // VolumeAttachment name -> the node it attaches to.
  private readonly attachmentNode = new Map<string, string>();

  /** A pod as it is now: bound to a node it adds its edges, unbound or gone it has none. */
  setPod(pod: unknown): void {
    const meta = metadataOf(pod);
    if (meta === undefined) return;
    const key = `${meta.namespace}/${meta.name}`;
    this.removePod(key);
    const spec = record(record(pod).spec);
    const node = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (node === '') return;
    const refs = podReferences(meta.namespace, meta.name, spec);
    // A pod that names no account runs as `default` (admission fills it in; this reads stored pods).
    if (![...refs].some((r) => r.startsWith('serviceaccounts/'))) refs.add(`serviceaccounts/${meta.namespace}/default`);
    this.pods.set(key, { node, refs: [...refs] });
    for (const ref of refs) {
      let nodes = this.reached.get(ref);
      if (nodes === undefined) this.reached.set(ref, (nodes = new Map<string, number>()));
      nodes.set(node, (nodes.get(node) ?? 0) + 1);
    }
  }

  deletePod(pod: unknown): void {
    const meta = metadataOf(pod);
    if (meta !== undefined) this.removePod(`${meta.namespace}/${meta.name}`);
  }

  /** A claim as it is now: its bound volume, if any. */
  setClaim(claim: unknown): void {
    const meta = metadataOf(claim);
    if (meta === undefined) return;
    const key = `${meta.namespace}/${meta.name}`;
    this.removeClaim(key);
    const volume = record(record(claim).spec).volumeName;
    if (typeof volume !== 'string' || volume === '') return;
    this.claimVolume.set(key, volume);
    let claims = this.volumeClaims.get(volume);
    if (claims === undefined) this.volumeClaims.set(volume, (claims = new Set()));
    claims.add(key);
  }

  deleteClaim(claim: unknown): void {
    const meta = metadataOf(claim);
    if (meta !== undefined) this.removeClaim(`${meta.namespace}/${meta.name}`);
  }

  /** A VolumeAttachment as it is now: the node it names. */
  setVolumeAttachment(attachment: unknown): void {
    const meta = metadataOf(attachment);
    if (meta === undefined) return;
    const node = record(record(attachment).spec).nodeName;
    if (typeof node === 'string' && node !== '') this.attachmentNode.set(meta.name, node);
    else this.attachmentNode.delete(meta.name);
  }

  deleteVolumeAttachment(attachment: unknown): void {
    const meta = metadataOf(attachment);
    if (meta !== undefined) this.attachmentNode.delete(meta.name);
  }

  /** Replaces every VolumeAttachment. */
  resetVolumeAttachments(attachments: readonly unknown[]): void {
    this.attachmentNode.clear();
    for (const attachment of attachments) this.setVolumeAttachment(attachment);
  }

  /** Replaces every pod (after a full re-read of them). */
  resetPods(pods: readonly unknown[]): void {
    this.pods.clear();
    this.reached.clear();
    for (const pod of pods) this.setPod(pod);
  }

  /** Replaces every claim. */
  resetClaims(claims: readonly unknown[]): void {
    this.claimVolume.clear();
    this.volumeClaims.clear();
    for (const claim of claims) this.setClaim(claim);
  }

  /** Whether a pod bound to `node` references the object (for volumes: a claim such a pod uses is bound to it). */
  reaches(node: string, kind: NodeReachableKind, namespace: string, name: string): boolean {
    if (kind === 'volumeattachments') return this.attachmentNode.get(name) === node;
    if (kind === 'persistentvolumes') {
      for (const claim of this.volumeClaims.get(name) ?? []) {
        if (this.reached.get(`persistentvolumeclaims/${claim}`)?.has(node)) return true;
      }
      return false;
    }
    return this.reached.get(`${kind}/${namespace}/${name}`)?.has(node) === true;
  }

  /** How many pods are bound to nodes (for tests and metrics). */
  get boundPods(): number {
    return this.pods.size;
  }

  private removePod(key: string): void {
    const edges = this.pods.get(key);
    if (edges === undefined) return;
    this.pods.delete(key);
    for (const ref of edges.refs) {
      const nodes = this.reached.get(ref);
      if (nodes === undefined) continue;
      const count = (nodes.get(edges.node) ?? 0) - 1;
      if (count > 0) nodes.set(edges.node, count);
      else nodes.delete(edges.node);
      if (nodes.size === 0) this.reached.delete(ref);
    }
  }

  private removeClaim(key: string): void {
    const volume = this.claimVolume.get(key);
    if (volume === undefined) return;
    this.claimVolume.delete(key);
    const claims = this.volumeClaims.get(volume);
    claims?.delete(key);
    if (claims?.size === 0) this.volumeClaims.delete(volume);
  }
}

type Rec = Record<string, unknown>;

function record(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function list(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function metadataOf(object: unknown): { namespace: string; name: string } | undefined {
  const meta = record(record(object).metadata);
  const name = str(meta.name);
  if (name === undefined) return undefined;
  return { namespace: typeof meta.namespace === 'string' ? meta.namespace : '', name };
}

// Volume sources whose secret is named `secretRef.name` (Kubernetes' VisitPodSecretNames).
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];

/** Everything a pod's spec names that its node needs to run it, as `kind/namespace/name` (Kubernetes' VisitPodSecretNames and friends). */
export function podReferences(namespace: string, podName: string, spec: Rec): Set<string> {
  const refs = new Set<string>();
  const add = (kind: NodeReachableKind, name: unknown): void => {
    const n = str(name);
    if (n !== undefined) refs.add(`${kind}/${namespace}/${n}`);
  };
  add('serviceaccounts', spec.serviceAccountName ?? spec.serviceAccount);
  for (const s of list(spec.imagePullSecrets)) add('secrets', s.name);
  for (const volume of list(spec.volumes)) {
    add('secrets', record(volume.secret).secretName);
    add('configmaps', record(volume.configMap).name);
    add('persistentvolumeclaims', record(volume.persistentVolumeClaim).claimName);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (volume.ephemeral !== undefined && typeof volume.name === 'string') add('persistentvolumeclaims', `${podName}-${volume.name}`);
    add('secrets', record(volume.azureFile).secretName);
    add('secrets', record(record(volume.csi).nodePublishSecretRef).name);
    for (const source of SECRET_REF_VOLUMES) add('secrets', record(record(volume[source]).secretRef).name);
    for (const projected of list(record(volume.projected).sources)) {
      add('secrets', record(projected.secret).name);
      add('configmaps', record(projected.configMap).name);
    }
  }
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const container of list(spec[field])) {
      for (const from of list(container.envFrom)) {
        add('secrets', record(from.secretRef).name);
        add('configmaps', record(from.configMapRef).name);
      }
      for (const env of list(container.env)) {
        const valueFrom = record(env.valueFrom);
        add('secrets', record(valueFrom.secretKeyRef).name);
        add('configmaps', record(valueFrom.configMapKeyRef).name);
      }
    }
  }
  return refs;
}
