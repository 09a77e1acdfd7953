import type { IpFamily } from '../model/ip';
import type { NoLocalEndpoints, ProblemsByService, ProxyRuleConfig, ProxyState } from '../model/proxy-state';

export type ProxyMode = 'nftables' | 'iptables';

/** What one family's sync left programmed and found wrong. */
export interface FamilySyncResult {
  readonly problems: ProblemsByService;
  readonly noLocalEndpoints: NoLocalEndpoints;
  /** Counts of what is programmed, by kind (chains, rules, elements, ...). */
  readonly counts: Readonly<Record<string, number>>;
  /** Whether the kernel was written at all (false when nothing changed). */
  readonly wrote: boolean;
}

/** The kernel side of the proxy: one implementation per mode. */
export interface ProxyBackend {
  readonly mode: ProxyMode;
  /**
   * Programs `state` for `family`. `full` asks to read back and rewrite everything (first sync, after a
   * failure, periodically); otherwise only what changed since the last successful sync is written.
   * Throws when the kernel refused the change; the next sync should then be full.
   */
  sync(family: IpFamily, config: ProxyRuleConfig, state: ProxyState, full: boolean): Promise<FamilySyncResult>;
  /** Removes everything this proxy programs, in every family; returns what it removed, one line each. */
  cleanup(): Promise<string[]>;
}
