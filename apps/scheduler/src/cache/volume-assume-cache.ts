import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';

/** What the scheduler reads of claims, volumes and classes (its informers' listers). */
export interface VolumeListers {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  volumes(): readonly PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
}

interface Assumed<T> {
  /** The resourceVersion of the informer's object the assumption was made on. */
  base: string | undefined;
  object: T;
}

/**
 * The informers' claims and volumes with the scheduler's own decisions laid over them (Kubernetes'
 * assume cache): a volume reserved for a pod's claim, or a claim given its node, counts as such for
 * the pods scheduled next, before the write reaches the server and comes back through the informer.
 * An assumption gives way as soon as the informer shows the object changed (the write landed, or
 * someone else wrote), or when it is withdrawn (the pod's binding failed).
 */
export class VolumeAssumeCache implements VolumeListers {
  private readonly claims = new Map<string, Assumed<PersistentVolumeClaim>>();
  private readonly assumedVolumes = new Map<string, Assumed<PersistentVolume>>();

  constructor(private readonly listers: VolumeListers) {}

  claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.laid(this.claims, `${namespace}/${name}`, this.listers.claim(namespace, name));
  }

  volume(name: string): PersistentVolume | undefined {
    return this.laid(this.assumedVolumes, name, this.listers.volume(name));
  }

  volumes(): readonly PersistentVolume[] {
    const listed = this.listers.volumes();
    if (this.assumedVolumes.size === 0) return listed;
    return listed.map((v) => this.laid(this.assumedVolumes, v.metadata?.name ?? '', v) ?? v);
  }

  storageClass(name: string): StorageClass | undefined {
    return this.listers.storageClass(name);
  }

  assumeClaim(claim: PersistentVolumeClaim): void {
    const key = `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
    this.claims.set(key, { base: this.listers.claim(claim.metadata?.namespace ?? '', claim.metadata?.name ?? '')?.metadata?.resourceVersion, object: claim });
  }

  assumeVolume(volume: PersistentVolume): void {
    const name = volume.metadata?.name ?? '';
    this.assumedVolumes.set(name, { base: this.listers.volume(name)?.metadata?.resourceVersion, object: volume });
  }

  restoreClaim(namespace: string, name: string): void {
    this.claims.delete(`${namespace}/${name}`);
  }

  restoreVolume(name: string): void {
    this.assumedVolumes.delete(name);
  }

  private laid<T extends { metadata?: { resourceVersion?: string } }>(assumed: Map<string, Assumed<T>>, key: string, informer: T | undefined): T | undefined {
    const entry = assumed.get(key);
    if (entry === undefined) return informer;
    if (informer === undefined || informer.metadata?.resourceVersion !== entry.base) {
      assumed.delete(key);
      return informer;
    }
    return entry.object;
  }
}
