import { quantityNanoValue, type Node, type PersistentVolume, type PersistentVolumeClaim, type Pod, type StorageClass } from '@svc/api';
import type { Client } from '@svc/client';
import { isRecord } from '@svc/machinery';
import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  NOT_SUPPORTED_PROVISIONER,
  claimClass,
  claimReference,
  ephemeralClaimName,
  findMatchingVolume,
  isDelayBindingClass,
  isVolumeBoundToClaim,
  refersToClaim,
  volumeNodeAffinityMatches,
} from '@svc/controllers';
import type { NodeInfo } from '../cache/node-info';
import type { VolumeAssumeCache } from '../cache/volume-assume-cache';
import type { BindingPlugin, CycleState, FilterPlugin, StateData } from '../framework/plugin';

export const ERR_VOLUME_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_VOLUME_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

/** Kubernetes' VolumeBindingArgs.BindTimeoutSeconds default: how long PreBind waits for the claims to bind. */
export const DEFAULT_BIND_TIMEOUT_MS = 600_000;
/** How often PreBind looks whether the claims are bound (Kubernetes polls every second). */
const BIND_POLL_MS = 1_000;

const STATE_KEY = 'VolumeBinding';

/** What one node needs done for the pod: volumes to reserve for claims, and claims to have provisioned there. */
interface PodVolumes {
  staticBindings: Array<{ volume: PersistentVolume; claim: PersistentVolumeClaim }>;
  provisions: PersistentVolumeClaim[];
}

class VolumeBindingState implements StateData {
  skip = false;
  boundClaims: PersistentVolumeClaim[] = [];
  /** Unbound claims of WaitForFirstConsumer classes: the node decides. */
  claimsToBind: PersistentVolumeClaim[] = [];
  readonly byNode = new Map<string, PodVolumes>();
  /** Whether reserve found nothing left to do (every claim bound). */
  allBound = true;
  /** What reserve assumed, for preBind and unreserve. */
  reserved?: PodVolumes;

  // Kubernetes' volume binding state is shared between copies: only the node filters write it.
  clone(): StateData {
    return this;
  }
}

/** Whether the claim is bound for good: the controller completed the binding. */
function isFullyBound(claim: PersistentVolumeClaim): boolean {
  return !!claim.spec?.volumeName && claim.metadata?.annotations?.[ANN_BIND_COMPLETED] !== undefined;
}

function requested(claim: PersistentVolumeClaim): string {
  return String(claim.spec?.resources?.requests?.storage ?? '');
}

/** The volume with its claimRef pointed at the claim (Kubernetes' GetBindVolumeToClaim), or itself when already so. */
function volumeBoundTo(volume: PersistentVolume, claim: PersistentVolumeClaim): PersistentVolume {
  const setByController = !isVolumeBoundToClaim(volume, claim);
  if (refersToClaim(volume, claim) && (!setByController || volume.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER] !== undefined)) return volume;
  const clone = structuredClone<PersistentVolume>(volume);
  clone.spec = { ...clone.spec, claimRef: claimReference(claim) };
  if (setByController) clone.metadata = { ...clone.metadata, annotations: { ...clone.metadata?.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' } };
  return clone;
}

/** Kubernetes' MatchTopologySelectorTerms: no terms allow every node; otherwise one term's every requirement must hold. */
function classAllowsNode(storageClass: StorageClass, node: NodeInfo): boolean {
  const terms = storageClass.allowedTopologies;
  if (!Array.isArray(terms) || terms.length === 0) return true;
  const labels = node.node?.metadata?.labels ?? {};
  return terms.some((term) => {
    const expressions = isRecord(term) && Array.isArray(term.matchLabelExpressions) ? term.matchLabelExpressions : [];
    return expressions.every((e) => isRecord(e) && typeof e.key === 'string' && Array.isArray(e.values) && e.values.includes(labels[e.key]));
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Kubernetes' VolumeBinding plugin. PreFilter reads the pod's claims: a missing one, one being deleted
 * or lost, or one of an Immediate class the controller has not bound yet makes the pod unschedulable
 * until that changes. Filter checks, per node, that the volumes of bound claims can be reached from it
 * (node affinity of local volumes), and that each unbound claim of a WaitForFirstConsumer class either
 * finds an Available volume reachable from the node or can be provisioned there (its class has a
 * provisioner whose allowed topologies include the node). Reserve assumes those choices so the next
 * pods see them; PreBind writes them (a volume's claimRef, a claim's
 * `volume.kubernetes.io/selected-node`) and waits, bounded, until the persistent volume controller
 * has bound every claim, before the pod is bound.
 */
export class VolumeBinding implements FilterPlugin, BindingPlugin {
  readonly name = 'VolumeBinding';

  constructor(
    private readonly cache: VolumeAssumeCache,
    private readonly client: Client,
    private readonly bindTimeoutMs = DEFAULT_BIND_TIMEOUT_MS,
  ) {}

  preFilter(state: CycleState): string | undefined {
    const data = new VolumeBindingState();
    state.write(STATE_KEY, data);
    const pod = state.pod.pod;
    const namespace = pod.metadata?.namespace ?? '';
    let hasClaims = false;
    for (const volume of pod.spec.volumes ?? []) {
      let name: string;
      const ephemeral = !volume.persistentVolumeClaim && !!volume.ephemeral;
      if (volume.persistentVolumeClaim) name = volume.persistentVolumeClaim.claimName;
      else if (volume.ephemeral) name = ephemeralClaimName(pod, volume.name);
      else continue;
      hasClaims = true;
      const claim = this.cache.claim(namespace, name);
      if (!claim)
        return ephemeral
          ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${name}"`
          : `persistentvolumeclaim "${name}" not found`;
      if (claim.status?.phase === 'Lost') return `persistentvolumeclaim "${name}" bound to non-existent persistentvolume "${claim.spec?.volumeName ?? ''}"`;
      if (claim.metadata?.deletionTimestamp) return `persistentvolumeclaim "${name}" is being deleted`;
      if (ephemeral && !this.ownedBy(claim, pod)) {
        return `PVC ${namespace}/${name} was not created for pod ${namespace}/${pod.metadata?.name ?? ''} (pod is not owner)`;
      }
      if (isFullyBound(claim)) data.boundClaims.push(claim);
      else if (isDelayBindingClass(this.cache.storageClass(claimClass(claim)))) data.claimsToBind.push(claim);
      else return ERR_UNBOUND_IMMEDIATE;
    }
    data.skip = !hasClaims;
    return undefined;
  }

  filter(state: CycleState, node: NodeInfo): string[] | undefined {
    const data = state.read<VolumeBindingState>(STATE_KEY);
    if (!data || data.skip || node.node === undefined) return undefined;
    const reasons: string[] = [];
    let boundSatisfied = true;
    let volumesFound = true;
    for (const claim of data.boundClaims) {
      const volume = this.cache.volume(claim.spec?.volumeName ?? '');
      if (!volume) volumesFound = false;
      else if (!volumeNodeAffinityMatches(volume, node.node)) boundSatisfied = false;
    }
    let unboundSatisfied = true;
    const podVolumes: PodVolumes = { staticBindings: [], provisions: [] };
    const toMatch: PersistentVolumeClaim[] = [];
    for (const claim of data.claimsToBind) {
      const selected = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (selected === undefined) toMatch.push(claim);
      else if (selected === node.name) podVolumes.provisions.push(claim);
      else unboundSatisfied = false;
    }
    if (unboundSatisfied && toMatch.length > 0) {
      // The smallest requests first, so each takes the smallest volume that fits it.
      toMatch.sort((a, b) => compareStorage(requested(a), requested(b)));
      const chosen = new Set<string>();
      const volumes = this.cache.volumes();
      for (const claim of toMatch) {
        const volume = findMatchingVolume(claim, volumes, node.node, chosen, true);
        if (volume) {
          chosen.add(volume.metadata?.name ?? '');
          podVolumes.staticBindings.push({ volume, claim });
        } else {
          const storageClass = this.cache.storageClass(claimClass(claim));
          if (!storageClass || !storageClass.provisioner || storageClass.provisioner === NOT_SUPPORTED_PROVISIONER || !classAllowsNode(storageClass, node)) {
            unboundSatisfied = false;
            break;
          }
          podVolumes.provisions.push(claim);
        }
      }
    }
    if (!boundSatisfied) reasons.push(ERR_VOLUME_NODE_CONFLICT);
    if (!unboundSatisfied) reasons.push(ERR_VOLUME_BIND_CONFLICT);
    if (!volumesFound) reasons.push(ERR_PV_NOT_EXIST);
    if (reasons.length > 0) return reasons;
    data.byNode.set(node.name, podVolumes);
    return undefined;
  }

  // Nothing but a change of the claims, volumes, classes or node labels can make a node fit.
  unresolvable(): boolean {
    return true;
  }

  curedBy(event: Parameters<FilterPlugin['curedBy']>[0]): boolean {
    if (event.resource === 'PersistentVolumeClaim' || event.resource === 'PersistentVolume' || event.resource === 'StorageClass') return true;
    return event.resource === 'Node' && (event.action === 'Add' || event.changes.has('label'));
  }

  reserve(state: CycleState, nodeName: string): void {
    const data = state.read<VolumeBindingState>(STATE_KEY);
    if (!data || data.skip) return;
    const planned = data.byNode.get(nodeName);
    if (!planned) return;
    const reserved: PodVolumes = { staticBindings: [], provisions: [] };
    for (const { volume, claim } of planned.staticBindings) {
      const bound = volumeBoundTo(volume, claim);
      if (bound !== volume) this.cache.assumeVolume(bound);
      reserved.staticBindings.push({ volume: bound, claim });
    }
    for (const claim of planned.provisions) {
      const annotated = structuredClone<PersistentVolumeClaim>(claim);
      annotated.metadata = { ...annotated.metadata, annotations: { ...annotated.metadata?.annotations, [ANN_SELECTED_NODE]: nodeName } };
      this.cache.assumeClaim(annotated);
      reserved.provisions.push(annotated);
    }
    data.reserved = reserved;
    data.allBound = reserved.staticBindings.length === 0 && reserved.provisions.length === 0;
  }

  unreserve(state: CycleState): void {
    const reserved = state.read<VolumeBindingState>(STATE_KEY)?.reserved;
    if (!reserved) return;
    for (const { volume } of reserved.staticBindings) this.cache.restoreVolume(volume.metadata?.name ?? '');
    for (const claim of reserved.provisions) this.cache.restoreClaim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '');
  }

  async preBind(state: CycleState, nodeName: string, signal: AbortSignal): Promise<void> {
    const data = state.read<VolumeBindingState>(STATE_KEY);
    const reserved = data?.reserved;
    if (!data || data.skip || data.allBound || !reserved) return;
    try {
      for (const { volume } of reserved.staticBindings) {
        const written = await this.client.persistentVolumes.update(volume);
        this.cache.assumeVolume(written);
      }
      for (const claim of reserved.provisions) {
        const written = await this.client.persistentVolumeClaims.update(claim, { namespace: claim.metadata?.namespace });
        this.cache.assumeClaim(written);
      }
    } catch (error) {
      throw new Error(`binding volumes: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const deadline = Date.now() + this.bindTimeoutMs;
    for (;;) {
      if (this.checkBindings(reserved, nodeName, state.cache.node(nodeName)?.node)) return;
      if (signal.aborted) throw new Error('binding volumes: the scheduler is stopping');
      if (Date.now() >= deadline) throw new Error('binding volumes: context deadline exceeded');
      await sleep(Math.min(BIND_POLL_MS, Math.max(0, deadline - Date.now())), signal);
    }
  }

  /** Kubernetes' checkBindings: true once every claim is bound, an error when a binding was undone. */
  private checkBindings(reserved: PodVolumes, nodeName: string, node: Node | undefined): boolean {
    let done = true;
    for (const { volume, claim } of reserved.staticBindings) {
      const current = this.cache.volume(volume.metadata?.name ?? '');
      if (!current) throw new Error(`binding volumes: failed to get pv "${volume.metadata?.name ?? ''}"`);
      if (!current.spec?.claimRef?.uid) throw new Error(`binding volumes: ClaimRef got reset for pv "${volume.metadata?.name ?? ''}"`);
      const live = this.cache.claim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (!live) throw new Error(`binding volumes: failed to get pvc "${claim.metadata?.namespace}/${claim.metadata?.name}"`);
      if (!isFullyBound(live)) done = false;
    }
    for (const claim of reserved.provisions) {
      const name = claim.metadata?.name ?? '';
      const live = this.cache.claim(claim.metadata?.namespace ?? '', name);
      if (!live) throw new Error(`binding volumes: failed to get pvc "${claim.metadata?.namespace}/${name}"`);
      if (live.metadata?.annotations?.[ANN_SELECTED_NODE] !== nodeName) throw new Error(`binding volumes: selectedNode annotation reset for PVC "${name}"`);
      if (!isFullyBound(live)) {
        done = false;
        continue;
      }
      const volume = this.cache.volume(live.spec?.volumeName ?? '');
      if (!volume) {
        done = false;
        continue;
      }
      if (node && !volumeNodeAffinityMatches(volume, node))
        throw new Error(`binding volumes: pv "${volume.metadata?.name ?? ''}" node affinity doesn't match node "${nodeName}"`);
    }
    return done;
  }

  private ownedBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
    return (claim.metadata?.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === pod.metadata?.uid);
  }
}

/** Storage requests compared by value ("1Gi" after "500Mi"); unreadable ones first. */
function compareStorage(a: string, b: string): number {
  const x = quantity(a);
  const y = quantity(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function quantity(text: string): bigint {
  return quantityNanoValue(text) ?? -1n;
}
