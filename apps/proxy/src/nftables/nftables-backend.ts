import type { IpFamily } from '../model/ip';
import type { ProxyRuleConfig, ProxyState } from '../model/proxy-state';
import type { FamilySyncResult, ProxyBackend } from '../sync/proxy-backend';
import type { NftCommand } from './nft-command';
import { NFT_TABLE_NAME, nftablesRules } from './nft-rules';
import { countTable, planStaleChainDeletion, planTransaction, type NftFamily, type NftTable } from './nft-table';

// A chain a map element pointed at may be deleted only a moment after the element went (the kernel
// frees the reference asynchronously, as kube-proxy found): wait this long.
const STALE_CHAIN_AGE_MS = 1_000;

interface FamilyState {
  applied?: NftTable;
  readonly stale: Map<string, number>;
}

export interface NftablesBackendOptions {
  nft: NftCommand;
  tableName?: string;
  /** Counts failures to delete stale chains (kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total). */
  onCleanupFailure?: (error: Error) => void;
  now?: () => number;
}

/**
 * The nftables mode: one table per family (`ip svc-proxy`, `ip6 svc-proxy`), written as kube-proxy's
 * nftables mode writes `kube-proxy`. The first sync reads back whatever table a previous process left
 * and replaces it in one transaction (no moment without rules, so a restart keeps traffic flowing);
 * later syncs write only the difference from what this process last wrote.
 */
export class NftablesBackend implements ProxyBackend {
  readonly mode = 'nftables';
  private readonly families = new Map<IpFamily, FamilyState>();
  private readonly tableName: string;
  private readonly now: () => number;

  constructor(private readonly options: NftablesBackendOptions) {
    this.tableName = options.tableName ?? NFT_TABLE_NAME;
    this.now = options.now ?? Date.now;
  }

  async sync(family: IpFamily, config: ProxyRuleConfig, state: ProxyState, full: boolean): Promise<FamilySyncResult> {
    const { nft } = this.options;
    let own = this.families.get(family);
    if (!own) this.families.set(family, (own = { stale: new Map() }));
    const nftFamily: NftFamily = family === 'IPv4' ? 'ip' : 'ip6';
    const result = nftablesRules(config, state, this.tableName);
    const desired = result.table;

    // Chains that went stale earlier and are wanted again are simply refilled.
    for (const name of desired.chains.keys()) own.stale.delete(name);
    const deletion = planStaleChainDeletion(nftFamily, this.tableName, own.stale, this.now(), STALE_CHAIN_AGE_MS);
    if (deletion) {
      await nft.apply(deletion).catch((error: Error) => {
        // The chains stay (empty); a full sync finds and stales them again.
        this.options.onCleanupFailure?.(error);
        full = true;
      });
    }

    const applied = full ? undefined : own.applied;
    const existing = applied === undefined ? await nft.read(nftFamily, this.tableName) : undefined;
    const plan = planTransaction(desired, applied, existing);
    own.applied = undefined;
    await nft.apply(plan.script);
    own.applied = desired;
    const at = this.now();
    for (const name of plan.staled) own.stale.set(name, at);
    return { problems: result.problems, noLocalEndpoints: result.noLocalEndpoints, counts: { ...countTable(desired) }, wrote: plan.script !== '' };
  }

  async cleanup(): Promise<string[]> {
    const removed: string[] = [];
    for (const family of ['ip', 'ip6'] as const) {
      if (await this.options.nft.deleteTable(family, this.tableName)) removed.push(`nftables table ${family} ${this.tableName}`);
    }
    this.families.clear();
    return removed;
  }
}
