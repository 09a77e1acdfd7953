import type { IpFamily } from '../model/ip';
import type { ProxyRuleConfig, ProxyState } from '../model/proxy-state';
import { setSysctl } from '../host/kernel';
import { CommandError, runCommand } from '../host/run-command';
import { findExecutable } from '../nftables/nft-command';
import type { ProxyMetrics } from '../observe/proxy-metrics';
import type { FamilySyncResult, ProxyBackend } from '../sync/proxy-backend';
import { CHAIN_PREFIX, iptablesRules, JUMPS, type IptablesChains, type IptablesRuleSet, type IptablesTableName } from './iptables-rules';

interface Tools {
  iptables: string;
  save: string;
  restore: string;
}

/** The iptables commands of both families (iptables-nft or legacy, whichever the host chose). */
export class IptablesCommand {
  constructor(readonly families: ReadonlyMap<IpFamily, Tools>) {}

  static async locate(): Promise<IptablesCommand | string> {
    const families = new Map<IpFamily, Tools>();
    for (const [family, prefix] of [
      ['IPv4', 'iptables'],
      ['IPv6', 'ip6tables'],
    ] as const) {
      const iptables = findExecutable(prefix);
      const save = findExecutable(`${prefix}-save`);
      const restore = findExecutable(`${prefix}-restore`);
      if (!iptables || !save || !restore) continue;
      const probe = await runCommand(iptables, ['-w', '5', '-t', 'nat', '-S', 'POSTROUTING']).catch(() => undefined);
      if (probe?.code === 0) families.set(family, { iptables, save, restore });
    }
    if (!families.has('IPv4'))
      return 'iptables, iptables-save and iptables-restore are not installed or cannot reach this kernel (Debian: apt-get install iptables)';
    return new IptablesCommand(families);
  }

  tools(family: IpFamily): Tools {
    const tools = this.families.get(family);
    if (!tools) throw new Error(`no ${family === 'IPv4' ? 'iptables' : 'ip6tables'} on this host`);
    return tools;
  }
}

/** Splits a rule into arguments, keeping double-quoted words whole. */
export function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

/** The `iptables-restore --noflush` input that takes our chains of one table from `before` to `after`. */
export function restoreInput(
  table: IptablesTableName,
  after: IptablesChains,
  before: ReadonlyMap<string, readonly string[]> | undefined,
  existing: ReadonlySet<string>,
): {
  input: string;
  written: number;
} {
  const lines = [`*${table}`];
  let written = 0;
  const changed = [...after].filter(([chain, rules]) => {
    const old = before?.get(chain);
    return !old || old.length !== rules.length || old.some((r, i) => r !== rules[i]);
  });
  const stale = [...(before ? before.keys() : existing)].filter((chain) => !after.has(chain));
  // Declaring a chain creates it, or empties it: its rules below then replace the old ones at once.
  for (const [chain] of changed) lines.push(`:${chain} - [0:0]`);
  for (const chain of stale) lines.push(`:${chain} - [0:0]`);
  for (const [chain, rules] of changed) {
    for (const rule of rules) lines.push(`-A ${chain} ${rule}`);
    written += rules.length;
  }
  for (const chain of stale) lines.push(`-X ${chain}`);
  if (changed.length === 0 && stale.length === 0) return { input: '', written: 0 };
  lines.push('COMMIT', '');
  return { input: lines.join('\n'), written };
}

export interface IptablesBackendOptions {
  iptables: IptablesCommand;
  /** `--iptables-localhost-nodeports`: NodePorts on 127.0.0.1 too (IPv4, with every address taking them). */
  localhostNodePorts: boolean;
  metrics?: ProxyMetrics;
}

interface FamilyState {
  applied?: IptablesRuleSet;
}

/**
 * The iptables mode, for hosts without nftables: chains of this proxy's own (prefix `SVCP-`) in the
 * nat and filter tables, written with `iptables-restore --noflush` (each table in one commit, so
 * packets see old rules or new), and jumps to them from the built-in chains. A restarted proxy
 * rewrites the chains it finds in place; later syncs rewrite only the chains that changed.
 */
export class IptablesBackend implements ProxyBackend {
  readonly mode = 'iptables';
  private readonly families = new Map<IpFamily, FamilyState>();

  constructor(private readonly options: IptablesBackendOptions) {}

  async sync(family: IpFamily, config: ProxyRuleConfig, state: ProxyState, full: boolean): Promise<FamilySyncResult> {
    const tools = this.options.iptables.tools(family);
    let own = this.families.get(family);
    if (!own) this.families.set(family, (own = {}));
    const result = iptablesRules(config, state, this.options.localhostNodePorts);
    const applied = full ? undefined : own.applied;
    own.applied = undefined;
    let input = '';
    const written: Record<string, number> = {};
    for (const table of ['filter', 'nat'] as const) {
      const existing = applied ? new Set<string>() : await this.ownChains(tools, table);
      const part = restoreInput(table, result.rules[table], applied?.[table], existing);
      input += part.input;
      written[table] = part.written;
    }
    if (input) {
      const run = await runCommand(tools.restore, ['-w', '5', '--noflush'], input);
      if (run.code !== 0) throw new CommandError(`${tools.restore} --noflush`, run);
    }
    if (!applied) await this.ensureJumps(tools);
    if (family === 'IPv4' && this.options.localhostNodePorts && config.nodePortAddresses === 'all') {
      const problem = setSysctl('/proc/sys/net/ipv4/conf/all/route_localnet', 1);
      if (problem) throw new Error(`NodePorts on 127.0.0.1 need route_localnet (or --iptables-localhost-nodeports=false): ${problem}`);
    }
    own.applied = result.rules;
    const counts: Record<string, number> = {};
    for (const table of ['filter', 'nat'] as const) {
      let rules = 0;
      for (const list of result.rules[table].values()) rules += list.length;
      counts[`${table}_rules`] = rules;
      counts[`${table}_chains`] = result.rules[table].size;
      if (family === 'IPv4') {
        this.options.metrics?.iptablesRules.set({ table }, rules);
        this.options.metrics?.iptablesRulesLast.set({ table }, written[table]);
      }
    }
    return { problems: result.problems, noLocalEndpoints: result.noLocalEndpoints, counts, wrote: input !== '' };
  }

  async cleanup(): Promise<string[]> {
    const removed: string[] = [];
    for (const [family, tools] of this.options.iptables.families) {
      for (const jump of JUMPS) {
        const args = ['-w', '5', '-t', jump.table, '-D', jump.chain, ...splitRule(jump.rule)];
        while ((await runCommand(tools.iptables, args)).code === 0) removed.push(`${family} ${jump.table} ${jump.chain} jump: ${jump.rule}`);
      }
      for (const table of ['filter', 'nat'] as const) {
        const chains = await this.ownChains(tools, table);
        if (chains.size === 0) continue;
        const input = [`*${table}`, ...[...chains].map((c) => `:${c} - [0:0]`), ...[...chains].map((c) => `-X ${c}`), 'COMMIT', ''].join('\n');
        const run = await runCommand(tools.restore, ['-w', '5', '--noflush'], input);
        if (run.code !== 0) throw new CommandError(`${tools.restore} --noflush`, run);
        removed.push(`${family} ${table} chains ${[...chains].join(', ')}`);
      }
    }
    this.families.clear();
    return removed;
  }

  /** Our chains in one table, as iptables-save lists them. */
  private async ownChains(tools: Tools, table: IptablesTableName): Promise<Set<string>> {
    const run = await runCommand(tools.save, ['-t', table]);
    if (run.code !== 0) throw new CommandError(`${tools.save} -t ${table}`, run);
    const chains = new Set<string>();
    for (const line of run.stdout.split('\n')) {
      const m = /^:(\S+) /.exec(line);
      if (m && m[1].startsWith(CHAIN_PREFIX)) chains.add(m[1]);
    }
    return chains;
  }

  /** The jumps into our chains, each once, at the head of its built-in chain. */
  private async ensureJumps(tools: Tools): Promise<void> {
    for (const jump of [...JUMPS].reverse()) {
      const rule = splitRule(jump.rule);
      const check = await runCommand(tools.iptables, ['-w', '5', '-t', jump.table, '-C', jump.chain, ...rule]);
      if (check.code === 0) continue;
      const insert = await runCommand(tools.iptables, ['-w', '5', '-t', jump.table, '-I', jump.chain, '1', ...rule]);
      if (insert.code !== 0) throw new CommandError(`iptables -t ${jump.table} -I ${jump.chain}`, insert);
    }
  }
}
