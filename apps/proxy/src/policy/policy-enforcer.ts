import type { Namespace, NetworkPolicy, Pod } from '@svc/api';
import type { Client } from '@svc/client';
import { listerWatcherFor, SharedInformerFactory, type InformerLogger, type SharedInformer } from '@svc/informers';
import type { IpFamily } from '../model/ip';
import type { NftCommand } from '../nftables/nft-command';
import { planStaleChainDeletion, planTransaction, type NftTable } from '../nftables/nft-table';
import { NETPOL_TABLE_NAME, networkPolicyTable } from './network-policy-rules';

/** Changes seen within this long are programmed together: a policy is in force well within a second. */
const BATCH_MS = 100;
/** As the service rules: a chain a map element pointed at is deleted a moment after the element went. */
const STALE_CHAIN_AGE_MS = 1_000;

export interface PolicyEnforcerDependencies {
  client: Client;
  nft: NftCommand;
  nodeName: string;
  families: readonly IpFamily[];
  log: (line: string) => void;
  informerLogger?: InformerLogger;
}

/**
 * Enforces NetworkPolicies for this node's pods in a table of their own (`svc-netpol`), from informers
 * on NetworkPolicies, Pods and Namespaces: every change reprograms the difference within BATCH_MS.
 * Until the caches have synced nothing is written, so a restart keeps the table its predecessor left;
 * a proxy whose identity may not read these kinds logs why and enforces nothing.
 */
export class PolicyEnforcer {
  private readonly factory: SharedInformerFactory;
  private readonly policies: SharedInformer<NetworkPolicy>;
  private readonly pods: SharedInformer<Pod>;
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly applied = new Map<IpFamily, NftTable>();
  private readonly stale = new Map<IpFamily, Map<string, number>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private synced = false;
  private stopped = false;

  constructor(private readonly deps: PolicyEnforcerDependencies) {
    const { client } = deps;
    this.factory = new SharedInformerFactory({ defaultResyncPeriodMs: 0, logger: deps.informerLogger });
    this.policies = this.factory.informerFor<NetworkPolicy>({ resource: 'networking.k8s.io/v1/networkpolicies' }, () =>
      listerWatcherFor(client.networkPolicies, {}),
    );
    this.pods = this.factory.informerFor<Pod>({ resource: 'v1/pods' }, () => listerWatcherFor(client.pods, {}));
    this.namespaces = this.factory.informerFor<Namespace>({ resource: 'v1/namespaces' }, () => listerWatcherFor(client.namespaces, {}));
    const changed = () => this.schedule();
    const handler = { onAdd: changed, onUpdate: changed, onDelete: changed };
    this.policies.addEventHandler(handler);
    this.pods.addEventHandler(handler);
    this.namespaces.addEventHandler(handler);
  }

  /** Starts the informers; the first sync runs once all three caches have synced. */
  start(): void {
    this.factory.start();
    void (async () => {
      for (let attempt = 0; !this.stopped; attempt++) {
        const done = await Promise.all([this.policies, this.pods, this.namespaces].map((i) => i.whenSynced(30_000)));
        if (done.every(Boolean)) break;
        const why = [this.policies, this.pods, this.namespaces].map((i) => i.lastError?.message).find(Boolean);
        if (attempt === 0 || attempt % 10 === 0) this.deps.log(`NetworkPolicies are not enforced yet: ${why ?? 'the caches have not synced'}`);
      }
      this.synced = true;
      this.schedule();
    })();
  }

  private schedule(): void {
    if (!this.synced || this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.running.then(() => this.sync()).catch((error: Error) => this.deps.log(`programming NetworkPolicies failed: ${error.message}`));
    }, BATCH_MS);
  }

  /** Programs every family's table from the caches now. */
  async sync(): Promise<void> {
    const input = {
      policies: this.policies.lister().list(),
      pods: this.pods.lister().list(),
      namespaces: this.namespaces.lister().list(),
      nodeName: this.deps.nodeName,
    };
    for (const family of this.deps.families) {
      const desired = networkPolicyTable(family, input);
      let stale = this.stale.get(family);
      if (stale === undefined) this.stale.set(family, (stale = new Map<string, number>()));
      for (const name of desired.chains.keys()) stale.delete(name);
      const deletion = planStaleChainDeletion(desired.family, NETPOL_TABLE_NAME, stale, Date.now(), STALE_CHAIN_AGE_MS);
      if (deletion) await this.deps.nft.apply(deletion).catch(() => this.applied.delete(family));
      const applied = this.applied.get(family);
      const existing = applied === undefined ? await this.deps.nft.read(desired.family, NETPOL_TABLE_NAME) : undefined;
      const plan = planTransaction(desired, applied, existing);
      this.applied.delete(family);
      await this.deps.nft.apply(plan.script);
      this.applied.set(family, desired);
      for (const name of plan.staled) stale.set(name, Date.now());
      // Stale chains are deleted by a later sync: ask for one once they are old enough.
      if (plan.staled.length > 0) setTimeout(() => this.schedule(), STALE_CHAIN_AGE_MS + BATCH_MS).unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
    await this.factory.shutdown();
  }

  /** Removes the NetworkPolicy tables (`--cleanup`). */
  static async cleanup(nft: NftCommand): Promise<string[]> {
    const removed: string[] = [];
    for (const family of ['ip', 'ip6'] as const) {
      if (await nft.deleteTable(family, NETPOL_TABLE_NAME)) removed.push(`nftables table ${family} ${NETPOL_TABLE_NAME}`);
    }
    return removed;
  }
}
