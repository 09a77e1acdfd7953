import { errorMessage } from '@svc/machinery';
import { isDeepStrictEqual } from 'node:util';
import {
  customResourceDefinitionDefinition,
  kindsFromCrd,
  type CustomResourceDefinition,
  type CustomResourceDefinitionNames,
  type KindDefinition,
  type Scheme,
} from '@svc/api';
import { isStorageError, objectStorageKey, prefixKey, type Storage, type Watcher } from '@svc/storage';
import { CRD_FINALIZER, ESTABLISHED, isConditionTrue, NAMES_ACCEPTED, setCondition, TERMINATING } from './crd-conditions';
import { checkNames, claimedNames, servable, type NamesCheck } from './crd-names';
import { storageCleaner, type CustomResourceCleaner } from './custom-resource-cleaner';

export interface CrdControllerLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * What happened to one CustomResourceDefinition: its kinds entered (`installed`) or left (`removed`)
 * the scheme, or the definition itself left the store (`deleted`, after its objects were deleted).
 */
export type CrdChange =
  { type: 'installed' | 'removed'; crdName: string; kinds: KindDefinition[] } | { type: 'deleted'; crdName: string; group: string; resource: string };

export interface CrdControllerOptions {
  scheme: Scheme;
  storage: Storage;
  /** `--store-prefix`; `/registry` by default. */
  storePrefix?: string;
  /** Deletes a terminating definition's objects; straight store deletes by default. */
  cleaner?: CustomResourceCleaner;
  logger?: CrdControllerLogger;
  now?: () => Date;
  /** Delay before a failed or unfinished reconcile is tried again; 1 s by default. */
  retryDelayMs?: number;
}

type Crd = CustomResourceDefinition;
type CrdStatus = NonNullable<Crd['status']>;

const CRD_GROUP = customResourceDefinitionDefinition.group;
const CRD_RESOURCE = customResourceDefinitionDefinition.resource;
const MAX_BACKOFF_MS = 30_000;

const silent: CrdControllerLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };

function withNames(crd: Crd, names: CustomResourceDefinitionNames): Crd {
  return { ...crd, spec: { ...crd.spec, names } };
}

function storageVersion(crd: Crd): string | undefined {
  return crd.spec.versions.find((v) => v.storage)?.name;
}

// The installed state of a definition whose kinds are served only until its objects are gone.
const TERMINATING_FINGERPRINT = 'terminating';

/**
 * The apiextensions controllers of Kubernetes folded into one level-based loop over the
 * CustomResourceDefinitions in the store: naming (NamesAccepted and acceptedNames), establishing
 * (the served versions registered into the shared scheme, so the generic handlers, discovery and
 * OpenAPI serve them), and finalizing (a terminating definition's objects are deleted, its finalizer
 * removed, and only then its kinds leave the scheme; meanwhile they are served for all but create). Every API server on a store runs its own: each keeps
 * its own scheme in step through its own watch, and their status writes agree.
 */
export class CrdController {
  readonly synced: Promise<void>;
  private resolveSynced!: () => void;
  private readonly scheme: Scheme;
  private readonly storage: Storage;
  private readonly storePrefix: string;
  private readonly cleaner: CustomResourceCleaner;
  private readonly logger: CrdControllerLogger;
  private readonly now: () => Date;
  private readonly retryDelayMs: number;

  /** The latest state seen of every definition, for the names other definitions claim. */
  private readonly crds = new Map<string, Crd>();
  /** The group and resource of every definition seen, kept until it has left the store. */
  private readonly resources = new Map<string, { group: string; resource: string }>();
  /** Kinds this controller put into the scheme, by definition name, with what they were built from. */
  private readonly installed = new Map<string, { kinds: KindDefinition[]; fingerprint: string }>();
  private readonly pending = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(change: CrdChange) => void>();
  private readonly idleWaiters: Array<() => void> = [];
  private working = false;
  private started = false;
  private stopped = false;
  private watcher?: Watcher<Crd>;
  private loop?: Promise<void>;

  constructor(options: CrdControllerOptions) {
    this.scheme = options.scheme;
    this.storage = options.storage;
    this.storePrefix = options.storePrefix ?? '/registry';
    this.cleaner = options.cleaner ?? storageCleaner(options.storage, this.storePrefix);
    this.logger = options.logger ?? silent;
    this.now = options.now ?? (() => new Date());
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
  }

  /** Lists and watches the definitions; `synced` resolves once every listed one has been reconciled. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
    await this.loop;
  }

  /** Called whenever kinds of a definition enter or leave the scheme. Returns the unsubscribe function. */
  onChange(listener: (change: CrdChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The kinds currently registered from a definition. */
  installedKinds(crdName: string): KindDefinition[] {
    return [...(this.installed.get(crdName)?.kinds ?? [])];
  }

  /** Resolves when nothing is queued or being reconciled (retries waiting on a timer do not count). */
  whenIdle(): Promise<void> {
    if (!this.working && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private get prefix(): string {
    return prefixKey({ prefix: this.storePrefix, group: CRD_GROUP, resource: CRD_RESOURCE });
  }

  private key(name: string): string {
    return objectStorageKey({ prefix: this.storePrefix, group: CRD_GROUP, resource: CRD_RESOURCE, name });
  }

  // ---- list and watch -------------------------------------------------------------------------

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const list = await this.storage.list<Crd>(this.prefix);
        const listed = new Set<string>();
        for (const crd of list.items) {
          const name = crd.metadata?.name;
          if (!name) continue;
          listed.add(name);
          this.crds.set(name, crd);
          this.enqueue(name);
        }
        // Gone while no watch was open: reconciling them finds them absent and cleans up.
        const inScheme = this.scheme.all().flatMap((d) => (d.source.type === 'crd' ? [d.source.name] : []));
        for (const name of [...this.crds.keys(), ...this.installed.keys(), ...inScheme]) if (!listed.has(name)) this.enqueue(name);
        await this.whenIdle();
        this.resolveSynced();
        if (this.stopped) break;
        const watcher = await this.storage.watch<Crd>(this.prefix, { revision: list.revision });
        this.watcher = watcher;
        // stop() may have come while the watch was being opened, before there was a watcher to stop.
        if (this.stopped) watcher.stop();
        failures = 0;
        for await (const event of watcher) {
          if (event.type === 'PROGRESS') continue;
          const name = event.object.metadata?.name;
          if (!name) continue;
          if (event.type === 'DELETED') this.crds.delete(name);
          else this.crds.set(name, event.object);
          // A terminating definition waiting for its objects to go is looked at again when its timer fires,
          // not on each of the status writes that waiting makes.
          if (!(event.type === 'MODIFIED' && event.object.metadata?.deletionTimestamp && this.timers.has(name))) this.enqueue(name);
          this.enqueueConflicting(event.object.spec?.group, name);
        }
        const ended = await watcher.ended;
        if (this.stopped || ended?.code === 'Closed') break;
        if (ended) this.logger.warn(`CustomResourceDefinition watch ended: ${ended.message}; listing again`);
      } catch (error) {
        if (this.stopped || isStorageError(error, 'Closed')) break;
        failures++;
        this.logger.warn(`CustomResourceDefinition list/watch failed: ${errorMessage(error)}`);
      }
      await this.sleep(Math.min(MAX_BACKOFF_MS, failures === 0 ? 0 : this.retryDelayMs * 2 ** Math.min(failures - 1, 5)));
    }
  }

  /** Definitions of the group that could not take their names may now, since another one changed. */
  private enqueueConflicting(group: string | undefined, except: string): void {
    if (!group) return;
    for (const [name, crd] of this.crds) {
      if (name !== except && crd.spec?.group === group && !isConditionTrue(crd.status?.conditions, NAMES_ACCEPTED)) this.enqueue(name);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }

  // ---- work queue -----------------------------------------------------------------------------

  private enqueue(name: string): void {
    if (this.stopped) return;
    const timer = this.timers.get(name);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(name);
    }
    this.pending.add(name);
    if (!this.working) void this.drain();
  }

  private requeueAfter(name: string, ms: number): void {
    if (this.stopped || this.timers.has(name)) return;
    const timer = setTimeout(() => {
      this.timers.delete(name);
      this.enqueue(name);
    }, ms);
    timer.unref();
    this.timers.set(name, timer);
  }

  private async drain(): Promise<void> {
    this.working = true;
    try {
      while (this.pending.size && !this.stopped) {
        const name = this.pending.values().next().value as string;
        this.pending.delete(name);
        try {
          await this.reconcile(name);
        } catch (error) {
          if (this.stopped || isStorageError(error, 'Closed')) break;
          this.logger.warn(`CustomResourceDefinition ${name}: ${errorMessage(error)}; retrying`);
          this.requeueAfter(name, this.retryDelayMs);
        }
      }
    } finally {
      this.working = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  // ---- reconcile ------------------------------------------------------------------------------

  private async get(name: string): Promise<Crd | null> {
    try {
      return await this.storage.get<Crd>(this.key(name));
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound')) return null;
      throw error;
    }
  }

  private async reconcile(name: string): Promise<void> {
    let crd = await this.get(name);
    if (!crd) {
      this.crds.delete(name);
      const kinds = this.uninstall(name);
      // Removed without passing through our finalizer (it was deleted before we added it): nothing else will delete its objects.
      if (kinds.length) await this.deleteInstances(kinds);
      const resource = this.resources.get(name);
      this.resources.delete(name);
      if (resource) this.emit({ type: 'deleted', crdName: name, ...resource });
      return;
    }
    this.crds.set(name, crd);
    this.resources.set(name, { group: crd.spec.group, resource: crd.spec.names.plural });
    if (crd.metadata?.deletionTimestamp) {
      await this.finalize(name, crd);
      return;
    }
    if (!crd.metadata?.finalizers?.includes(CRD_FINALIZER)) {
      crd = await this.update(name, (current) =>
        current.metadata?.deletionTimestamp || current.metadata?.finalizers?.includes(CRD_FINALIZER)
          ? current
          : { ...current, metadata: { ...current.metadata, finalizers: [...(current.metadata?.finalizers ?? []), CRD_FINALIZER] } },
      );
      if (!crd) return;
      if (crd.metadata?.deletionTimestamp) return this.finalize(name, crd);
    }
    await this.establish(name, crd);
  }

  /** Names, registration into the scheme, then status: Established is only written once the kinds are served. */
  private async establish(name: string, crd: Crd): Promise<void> {
    const check = checkNames(crd, claimedNames(crd.spec.group, name, this.crds.values(), this.scheme.all()));
    const wasEstablished = isConditionTrue(crd.status?.conditions, ESTABLISHED);
    const namesOk = check.condition.status === 'True' || wasEstablished;
    let installError: string | undefined;
    let kinds: KindDefinition[] = [];
    if (namesOk && servable(check.acceptedNames)) {
      try {
        kinds = kindsFromCrd(withNames(crd, check.acceptedNames));
        this.install(name, kinds, JSON.stringify([crd.spec, check.acceptedNames]));
      } catch (error) {
        installError = errorMessage(error);
        kinds = [];
        this.uninstall(name);
      }
    } else {
      this.uninstall(name);
    }
    const serving = kinds.length > 0;
    const written = await this.update(name, (current) => {
      if (current.metadata?.deletionTimestamp) return current;
      const status = this.establishedStatus(current, check, serving, installError);
      return isDeepStrictEqual(status, current.status) ? current : { ...current, status };
    });
    if (written?.metadata?.deletionTimestamp) this.enqueue(name);
    if (installError) this.logger.warn(`CustomResourceDefinition ${name} cannot be served: ${installError}`);
  }

  private establishedStatus(current: Crd, check: NamesCheck, serving: boolean, installError: string | undefined): CrdStatus {
    const now = this.now();
    let conditions = setCondition(current.status?.conditions, { type: NAMES_ACCEPTED, ...check.condition }, now);
    if (serving) {
      conditions = setCondition(
        conditions,
        { type: ESTABLISHED, status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
        now,
      );
    } else if (installError) {
      conditions = setCondition(conditions, { type: ESTABLISHED, status: 'False', reason: 'InstallationFailed', message: installError }, now);
    } else {
      conditions = setCondition(conditions, { type: ESTABLISHED, status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    }
    const stored = [...(current.status?.storedVersions ?? [])];
    const storage = storageVersion(current);
    if (serving && storage && !stored.includes(storage)) stored.push(storage);
    // The status schema wants plural and kind in acceptedNames; until both were accepted there is none.
    const names = check.acceptedNames.plural && check.acceptedNames.kind ? { acceptedNames: check.acceptedNames as CustomResourceDefinitionNames } : {};
    return { conditions: conditions, ...names, storedVersions: stored };
  }

  /**
   * A terminating definition: its objects are deleted, then its finalizer removed and the kinds leave
   * the scheme. Until then they stay served, as in Kubernetes, for everything but create, so that the
   * finalizers of objects that have them can still be removed; discovery no longer lists them.
   */
  private async finalize(name: string, crd: Crd): Promise<void> {
    const accepted = crd.status?.acceptedNames;
    const kinds = this.installed.get(name)?.kinds ?? (servable(accepted) ? kindsFromCrd(withNames(crd, accepted)) : []);
    if (!crd.metadata?.finalizers?.includes(CRD_FINALIZER)) {
      this.uninstall(name);
      // Our finalizer was removed earlier but the delete that followed lost a race with another write
      // (a Conflict): with no finalizer left, nothing else would ever take the definition away.
      await this.deleteIfFinalized(name, crd);
      return;
    }
    this.serveWhileTerminating(name, kinds);
    if (!isConditionTrue(crd.status?.conditions, TERMINATING)) {
      await this.setTerminating(name, 'True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress');
    }

    let remaining: number;
    try {
      remaining = await this.deleteInstances(kinds);
    } catch (error) {
      await this.setTerminating(name, 'True', 'InstanceDeletionFailed', `could not delete instances: ${errorMessage(error)}`);
      this.requeueAfter(name, this.retryDelayMs);
      return;
    }
    if (remaining > 0) {
      await this.setTerminating(name, 'True', 'InstanceDeletionPending', `${remaining} CustomResource(s) remaining, waiting for their finalizers`);
      this.requeueAfter(name, this.retryDelayMs);
      return;
    }

    const done = await this.update(name, (current) => {
      if (!current.metadata?.finalizers?.includes(CRD_FINALIZER)) return current;
      const conditions = setCondition(
        current.status?.conditions,
        { type: TERMINATING, status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
        this.now(),
      );
      return {
        ...current,
        metadata: { ...current.metadata, finalizers: current.metadata.finalizers.filter((f) => f !== CRD_FINALIZER) },
        status: { ...current.status, conditions: conditions },
      };
    });
    this.uninstall(name);
    if (done) await this.deleteIfFinalized(name, done);
  }

  /**
   * With its last finalizer gone a terminating definition leaves the store, as the generic delete path
   * would do. A write between our read and the delete (a Conflict) brings it back through the queue.
   */
  private async deleteIfFinalized(name: string, crd: Crd): Promise<void> {
    if (!crd.metadata?.deletionTimestamp || (crd.metadata.finalizers?.length ?? 0) > 0) return;
    try {
      await this.storage.delete(this.key(name), { preconditions: { uid: crd.metadata.uid, resourceVersion: crd.metadata.resourceVersion } });
    } catch (error) {
      if (isStorageError(error, 'Conflict')) this.enqueue(name);
      else if (!isStorageError(error, 'KeyNotFound') && !isStorageError(error, 'InvalidPrecondition')) throw error;
    }
  }

  private async setTerminating(name: string, status: 'True' | 'False', reason: string, text: string): Promise<void> {
    await this.update(name, (current) => {
      const now = this.now();
      let conditions = setCondition(
        current.status?.conditions,
        { type: ESTABLISHED, status: 'False', reason: 'Terminating', message: 'the CustomResourceDefinition is being deleted' },
        now,
      );
      conditions = setCondition(conditions, { type: TERMINATING, status, reason, message: text }, now);
      const next: CrdStatus = { ...current.status, conditions: conditions };
      return isDeepStrictEqual(next, current.status) ? current : { ...current, status: next };
    });
  }

  /** Deletes the objects of the definition's resource (one call: every version shares the same storage). */
  private async deleteInstances(kinds: KindDefinition[]): Promise<number> {
    const kind = kinds.find((k) => k.storage) ?? kinds[0];
    return kind ? this.cleaner.deleteAll(kind) : 0;
  }

  /** guaranteedUpdate of a definition; null when it is gone. Keeps the seen state current for name checks. */
  private async update(name: string, tryUpdate: (current: Crd) => Crd): Promise<Crd | null> {
    try {
      const written = await this.storage.guaranteedUpdate<Crd>(this.key(name), (current) => {
        if (!current) throw new Error('unreachable: guaranteedUpdate without ignoreNotFound');
        return tryUpdate(current);
      });
      this.crds.set(name, written);
      return written;
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound')) return null;
      throw error;
    }
  }

  // ---- scheme -------------------------------------------------------------------------------

  private install(name: string, kinds: KindDefinition[], fingerprint: string): void {
    const current = this.installed.get(name);
    if (current && current.fingerprint === fingerprint) return;
    for (const k of kinds) {
      const byKind = this.scheme.byGvk(k);
      const byResource = this.scheme.byResource(k);
      for (const holder of [byKind, byResource]) {
        if (holder && !(holder.source.type === 'crd' && holder.source.name === name)) {
          throw new Error(
            `${k.resource} (${k.kind}) in ${k.group}/${k.version} is already served by ${holder.source.type === 'crd' ? `CustomResourceDefinition ${holder.source.name}` : 'a built-in kind'}`,
          );
        }
      }
    }
    const previous = this.scheme.unregisterCrd(name);
    try {
      for (const k of kinds) this.scheme.register(k);
    } catch (error) {
      this.scheme.unregisterCrd(name);
      for (const p of previous) this.scheme.register(p);
      throw error;
    }
    this.installed.set(name, { kinds, fingerprint });
    this.logger.log(`Serving CustomResourceDefinition ${name}: ${kinds.map((k) => `${k.group}/${k.version}, Kind=${k.kind}`).join('; ')}`);
    this.emit({ type: 'installed', crdName: name, kinds });
  }

  /** Keeps the definition's kinds in the scheme, marked terminating (no create, not in discovery). */
  private serveWhileTerminating(name: string, kinds: KindDefinition[]): void {
    const current = this.installed.get(name);
    if (current?.fingerprint === TERMINATING_FINGERPRINT || kinds.length === 0) return;
    const terminating = kinds.map((k) => ({ ...k, terminating: true }));
    this.scheme.unregisterCrd(name);
    for (const k of terminating) this.scheme.register(k);
    this.installed.set(name, { kinds: terminating, fingerprint: TERMINATING_FINGERPRINT });
    this.emit({ type: 'installed', crdName: name, kinds: terminating });
  }

  /** Removes the definition's kinds from the scheme; returns what was removed. */
  private uninstall(name: string): KindDefinition[] {
    const removed = this.scheme.unregisterCrd(name);
    const had = this.installed.get(name);
    this.installed.delete(name);
    const kinds = removed.length ? removed : (had?.kinds ?? []);
    if (removed.length) {
      this.logger.log(`No longer serving CustomResourceDefinition ${name}`);
      this.emit({ type: 'removed', crdName: name, kinds });
    }
    return kinds;
  }

  private emit(change: CrdChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error(`CustomResourceDefinition change listener failed: ${errorMessage(error)}`);
      }
    }
  }
}
