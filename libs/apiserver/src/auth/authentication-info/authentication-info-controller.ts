import type { ApiObject } from '@svc/api';
import { errorMessage, isStatusError, jsonEqual } from '@svc/machinery';
import { ensureNamespace, SERVER_FIELD_MANAGER } from '../../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../../registry/resource-registry';
import type { ResourceWatch } from '../../registry/types';
import { AUTHENTICATION_INFO_CONFIGMAP, AUTHENTICATION_INFO_NAMESPACE } from '@svc/machinery';
import { authenticationInfoData, combineAuthenticationInfo, parseAuthenticationInfoData, type ClusterAuthenticationInfo } from './cluster-authentication-info';

/** Kubernetes' name for the post-start hook that starts this controller. */
export const AUTHENTICATION_INFO_POST_START_HOOK = 'start-cluster-authentication-info-controller';
/** How often the ConfigMap is checked even when no watch event said it changed (Kubernetes: every minute). */
export const AUTHENTICATION_INFO_RESYNC_MS = 60_000;

const FIRST_SYNC_ATTEMPTS = 30;
const FIRST_SYNC_RETRY_MS = 500;
const RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
const WATCH_RETRY_MS = 1_000;

export interface AuthenticationInfoControllerOptions {
  configMaps: ResourceRegistry;
  /** The namespace is made when missing, as Kubernetes does; without it the write waits for it. */
  namespaces?: ResourceRegistry;
  /** What this server requires to be published. */
  required: ClusterAuthenticationInfo;
  /** Period of the check that does not wait for a watch event (default a minute). */
  resyncPeriodMs?: number;
  now?: () => number;
  /** Where failures to write are reported. */
  log?: (message: string) => void;
}

/**
 * Kubernetes' cluster authentication trust controller: keeps the ConfigMap
 * `svc-system/extension-apiserver-authentication` holding the client CAs this server accepts and its
 * front proxy's settings, for components that authenticate callers on their own endpoints. It is
 * checked when its watch reports a change (an edit or a deletion is put right at once) and every
 * minute besides; it is written only when what it holds differs from what it should.
 */
export class AuthenticationInfoController {
  private stopped = false;
  private syncing = false;
  private again = false;
  private failures = 0;
  private resyncTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private watch: ResourceWatch | undefined;
  private writes = 0;
  private readonly now: () => number;
  private readonly log: (message: string) => void;

  constructor(private readonly options: AuthenticationInfoControllerOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => undefined);
  }

  /** How many times the ConfigMap was written (created, updated or cleared). */
  get writeCount(): number {
    return this.writes;
  }

  /**
   * Writes the ConfigMap once (the post-start hook waits for it, so a component started after
   * readiness finds it), then follows it. A store that keeps refusing the first write does not hold
   * readiness for ever: after a while the controller goes on trying in the background.
   */
  async start(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.sync();
        break;
      } catch (error) {
        if (attempt >= FIRST_SYNC_ATTEMPTS) {
          this.log(`cannot write ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_CONFIGMAP} yet, retrying: ${errorMessage(error)}`);
          this.scheduleRetry();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, FIRST_SYNC_RETRY_MS).unref());
      }
    }
    if (this.stopped) return;
    this.resyncTimer = setInterval(() => this.requestSync(), this.options.resyncPeriodMs ?? AUTHENTICATION_INFO_RESYNC_MS);
    this.resyncTimer.unref();
    void this.follow();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of [this.resyncTimer, this.retryTimer, this.watchTimer]) if (timer) clearTimeout(timer);
    this.watch?.stop();
  }

  /** One check: reads the ConfigMap and writes it when its content is not what it should be; true when it wrote. */
  async sync(): Promise<boolean> {
    const { configMaps } = this.options;
    let current: ApiObject | undefined;
    try {
      current = await configMaps.get(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_CONFIGMAP);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
    }
    const currentData = (current?.data ?? {}) as Record<string, unknown>;
    const data = authenticationInfoData(combineAuthenticationInfo(parseAuthenticationInfoData(currentData), this.options.required, this.now()));
    if (current !== undefined && jsonEqual(currentData, data)) return false;
    if (current === undefined) {
      if (this.options.namespaces) await ensureNamespace(this.options.namespaces, AUTHENTICATION_INFO_NAMESPACE);
      const value = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: AUTHENTICATION_INFO_CONFIGMAP, namespace: AUTHENTICATION_INFO_NAMESPACE },
        data,
      };
      await configMaps.create(AUTHENTICATION_INFO_NAMESPACE, { value }, { fieldManager: SERVER_FIELD_MANAGER });
      this.writes++;
      return true;
    }
    try {
      await configMaps.update(
        AUTHENTICATION_INFO_NAMESPACE,
        AUTHENTICATION_INFO_CONFIGMAP,
        { value: { ...structuredClone(current), data } },
        { fieldManager: SERVER_FIELD_MANAGER },
      );
    } catch (error) {
      // Grown past a ConfigMap's size with certificates others added: cleared, so that the next
      // check writes it anew (what other servers need comes back with their own checks).
      if (isStatusError(error) && (error.code === 413 || (error.code === 422 && /too long/i.test(error.message)))) {
        await configMaps.delete(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_CONFIGMAP, {}, { fieldManager: SERVER_FIELD_MANAGER });
        this.writes++;
      }
      throw error;
    }
    this.writes++;
    return true;
  }

  /** Runs a check now, or once more after the one running; checks never overlap. */
  private requestSync(): void {
    if (this.stopped) return;
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = true;
    void this.runSyncs();
  }

  private async runSyncs(): Promise<void> {
    try {
      do {
        this.again = false;
        try {
          await this.sync();
          this.failures = 0;
        } catch (error) {
          this.failures++;
          // A conflict is another writer that got there first: the retry reads its write.
          if (!isStatusError(error) || error.code !== 409) {
            this.log(`cannot write ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_CONFIGMAP}: ${errorMessage(error)}`);
          }
          this.scheduleRetry();
          return;
        }
      } while (this.again && !this.stopped);
    } finally {
      this.syncing = false;
    }
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(this.failures, 10));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.requestSync();
    }, delay);
    this.retryTimer.unref();
  }

  /** Watches the ConfigMap (through the watch cache when there is one); every event is a reason to check it. */
  private async follow(): Promise<void> {
    if (this.stopped) return;
    try {
      const watch = await this.options.configMaps.watch(AUTHENTICATION_INFO_NAMESPACE, {
        fieldSelector: `metadata.name=${AUTHENTICATION_INFO_CONFIGMAP}`,
      });
      if (this.stopped) {
        watch.stop();
        return;
      }
      this.watch = watch;
      // What changed between the last check and this watch's start.
      this.requestSync();
      try {
        for await (const event of watch) {
          if (this.stopped || event.type === 'ERROR') break;
          if (event.type !== 'BOOKMARK') this.requestSync();
        }
      } finally {
        watch.stop();
        this.watch = undefined;
      }
    } catch {
      // Opened again below, as an ended watch is.
    }
    if (this.stopped) return;
    this.watchTimer = setTimeout(() => void this.follow(), WATCH_RETRY_MS);
    this.watchTimer.unref();
  }
}
