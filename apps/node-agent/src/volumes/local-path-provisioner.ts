import { lstat, mkdir, chmod, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import { listerWatcherFor, RateLimitingQueue, runQueueWorker, SharedInformer, silentInformerLogger } from '@svc/informers';
import { errorMessage, isAlreadyExists, isNotFound } from '@svc/machinery';
import type { EventRecorder } from '@svc/runtime';
import { claimProblem, decideClaim, directoryFor, shouldDelete, volumeFor, volumeNameFor, LOCAL_PATH_PROVISIONER, NODES_UNKNOWN } from './local-path-volumes';

export interface LocalPathProvisionerOptions {
  nodeName: string;
  /** Where volumes are made when their class names no `nodePath`. */
  baseDir: string;
  log: (message: string) => void;
}

type Key = `claim/${string}` | `volume/${string}`;

const SYNC_TIMEOUT_MS = 60_000;

/**
 * The local path provisioner of this node, an external provisioner living in the node agent because
 * its volumes are directories of the node: it makes a directory and a `local` PersistentVolume bound
 * in advance to each Pending claim of its classes that is to live on this node, and removes both once
 * such a volume is Released under reclaim policy Delete. Claims get the events external provisioners
 * give (Provisioning, ProvisioningSucceeded, ProvisioningFailed). A restart makes nothing twice: a
 * claim whose volume `pvc-<uid>` exists is done.
 */
export class LocalPathProvisioner {
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;
  private readonly queue = new RateLimitingQueue<Key>();
  private worker?: Promise<void>;
  /** Volumes made by this process: a claim's update may come before its volume's creation is watched. */
  private readonly made = new Set<string>();
  private warnedNodes = false;

  constructor(
    private readonly client: Client,
    private readonly recorder: EventRecorder,
    private readonly options: LocalPathProvisionerOptions,
  ) {
    const named = (name: string) => ({ logger: silentInformerLogger, name: `local-path-${name}` });
    this.claims = new SharedInformer(listerWatcherFor(client.resource(BUILTIN_RESOURCES.persistentVolumeClaims)), named('claims'));
    this.volumes = new SharedInformer(listerWatcherFor(client.resource(BUILTIN_RESOURCES.persistentVolumes)), named('volumes'));
    this.classes = new SharedInformer(listerWatcherFor(client.resource(BUILTIN_RESOURCES.storageClasses)), named('classes'));
    const claimKey = (claim: PersistentVolumeClaim) => this.queue.add(`claim/${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`);
    this.claims.addEventHandler({ onAdd: claimKey, onUpdate: (_a, b) => claimKey(b) });
    const volumeKey = (volume: PersistentVolume) => this.queue.add(`volume/${volume.metadata?.name ?? ''}`);
    this.volumes.addEventHandler({
      onAdd: volumeKey,
      onUpdate: (_a, b) => volumeKey(b),
      onDelete: (v) => {
        this.made.delete(v.metadata?.name ?? '');
      },
    });
    // A class made after its claims: the claims are looked at again.
    const everyClaim = () => this.claims.lister().list().forEach(claimKey);
    this.classes.addEventHandler({ onAdd: everyClaim, onUpdate: everyClaim });
  }

  start(): void {
    for (const informer of [this.claims, this.volumes, this.classes]) informer.start();
    this.worker = (async () => {
      const informers = [this.claims, this.volumes, this.classes];
      const synced = await Promise.all(informers.map((i) => i.whenSynced(SYNC_TIMEOUT_MS)));
      if (synced.includes(false)) {
        const failed = informers.find((i, n) => !synced[n]);
        this.options.log(`local path provisioner: claims, volumes or classes not readable yet (${failed?.lastError?.message ?? 'not synced'}); waiting`);
        await Promise.all(informers.map((i) => i.whenSynced()));
      }
      await runQueueWorker(this.queue, (key) => this.sync(key));
    })().catch((error) => this.options.log(`local path provisioner stopped: ${errorMessage(error)}`));
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all([this.claims, this.volumes, this.classes].map((i) => i.stop()));
    await this.worker;
  }

  private async sync(key: Key): Promise<void> {
    const [kind, ...rest] = key.split('/');
    if (kind === 'claim') return this.syncClaim(rest.join('/'));
    return this.syncVolume(rest.join('/'));
  }

  private async syncClaim(namespacedName: string): Promise<void> {
    const claim = this.claims.lister().get(namespacedName);
    if (!claim) return;
    const className = claim.spec?.storageClassName ?? '';
    const storageClass = this.classes.lister().get(className);
    const volumeName = volumeNameFor(claim);
    const facts = {
      nodeName: this.options.nodeName,
      storageClass,
      volumeExists: this.made.has(volumeName) || this.volumes.lister().get(volumeName) !== undefined,
    };
    let decision = decideClaim(claim, facts);
    // Only a claim that is ours but for the count of Nodes costs a request for them.
    if (!decision.provision && decision.reason === NODES_UNKNOWN) decision = decideClaim(claim, { ...facts, nodeNames: await this.nodeNames() });
    if (!decision.provision || !storageClass) return;
    const problem = claimProblem(claim, storageClass);
    if (problem) {
      // Nothing will change until the claim or the class does: no retry.
      this.claimEvent(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": ${problem}`);
      return;
    }
    const namespace = claim.metadata?.namespace ?? '';
    const name = claim.metadata?.name ?? '';
    this.claimEvent(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${namespace}/${name}"`);
    const path = directoryFor(claim, storageClass, this.options.baseDir);
    try {
      // Open to every user: the pod's user is not known here (an fsGroup narrows it when the pod mounts it).
      await mkdir(path, { recursive: true, mode: 0o777 });
      await chmod(path, 0o777);
      await this.client.resource(BUILTIN_RESOURCES.persistentVolumes).create(volumeFor(claim, storageClass, this.options.nodeName, path));
    } catch (error) {
      if (!isAlreadyExists(error)) {
        this.claimEvent(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": ${errorMessage(error)}`);
        throw error;
      }
    }
    this.made.add(volumeName);
    this.options.log(`local path provisioner: volume ${volumeName} for claim ${namespace}/${name} at ${path}`);
    this.claimEvent(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`);
  }

  /**
   * The cluster's Nodes (two at most are needed), or undefined when this agent may not list them: a node
   * is let read its own Node only, unless a role grants it `list nodes`.
   */
  private async nodeNames(): Promise<string[] | undefined> {
    try {
      const list = await this.client.resource(BUILTIN_RESOURCES.nodes).list({ limit: 2 });
      return list.items.map((n) => n.metadata?.name ?? '');
    } catch (error) {
      if (!this.warnedNodes)
        this.options.log(`local path provisioner: Immediate claims wait for a selected node, since the Nodes cannot be listed: ${errorMessage(error)}`);
      this.warnedNodes = true;
      return undefined;
    }
  }

  private async syncVolume(name: string): Promise<void> {
    const volume = this.volumes.lister().get(name);
    if (!volume || !shouldDelete(volume, this.options.nodeName)) return;
    const path = volume.spec?.local?.path ?? '';
    // Only a directory this provisioner named after the volume is removed, never one a hand-made volume points at.
    if (!basename(path).startsWith(`${name}_`)) {
      this.volumeEvent(volume, 'Warning', 'VolumeFailedDelete', `${path} is not a directory ${LOCAL_PATH_PROVISIONER} made for ${name}: left in place`);
      return;
    }
    try {
      const info = await lstat(path).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
      if (info && !info.isDirectory()) throw new Error(`${path} is not a directory`);
      if (info) await rm(path, { recursive: true, force: true });
      await this.client.resource(BUILTIN_RESOURCES.persistentVolumes).delete(name, { preconditions: { uid: volume.metadata?.uid } });
      this.options.log(`local path provisioner: volume ${name} and ${path} removed`);
    } catch (error) {
      if (isNotFound(error)) return;
      this.volumeEvent(volume, 'Warning', 'VolumeFailedDelete', errorMessage(error));
      throw error;
    }
  }

  private claimEvent(claim: PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.recorder.event({ ...claim, apiVersion: 'v1', kind: 'PersistentVolumeClaim' }, type, reason, message);
  }

  private volumeEvent(volume: PersistentVolume, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.recorder.event({ ...volume, apiVersion: 'v1', kind: 'PersistentVolume' }, type, reason, message);
  }
}
