/** The nftables family of a table: `ip` for IPv4, `ip6` for IPv6. */
export type NftFamily = 'ip' | 'ip6';

/** What hooks a base chain into the kernel's packet path. */
export interface NftHook {
  readonly type: 'filter' | 'nat';
  readonly hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';
  /** Numeric: the names (dstnat, srcnat) are not valid on every hook, and offsets from them not at all. */
  readonly priority: number;
}

export interface NftChain {
  readonly name: string;
  readonly hook?: NftHook;
  readonly rules: readonly string[];
}

export interface NftSet {
  readonly name: string;
  /** `ipv4_addr`, `ipv4_addr . inet_proto . inet_service`, ... */
  readonly type: string;
  readonly comment?: string;
  /** A set the kernel fills (`update @set { ... }` in a rule) with entries that time out: its elements are not ours. */
  readonly dynamicTimeoutSeconds?: number;
  readonly elements: readonly string[];
}

export interface NftMap {
  readonly name: string;
  /** `<key type> : verdict` */
  readonly type: string;
  readonly comment?: string;
  /** Key (`10.96.0.1 . tcp . 80`) to value (`goto service-...`). */
  readonly elements: ReadonlyMap<string, string>;
}

/** Everything the proxy keeps in its one table. */
export interface NftTable {
  readonly family: NftFamily;
  readonly name: string;
  readonly comment: string;
  readonly chains: ReadonlyMap<string, NftChain>;
  readonly sets: ReadonlyMap<string, NftSet>;
  readonly maps: ReadonlyMap<string, NftMap>;
}

/** What a table holds, by kind, for the metrics. */
export interface NftCounts {
  chains: number;
  rules: number;
  sets: number;
  maps: number;
  elements: number;
}

export function countTable(table: NftTable): NftCounts {
  let rules = 0;
  let elements = 0;
  for (const chain of table.chains.values()) rules += chain.rules.length;
  for (const set of table.sets.values()) elements += set.elements.length;
  for (const map of table.maps.values()) elements += map.elements.size;
  return { chains: table.chains.size, rules, sets: table.sets.size, maps: table.maps.size, elements };
}

/** A name as nft reads it; every name here is made of letters, digits and `-_./`, so it needs no quotes. */
function quote(text: string): string {
  return `"${text.replaceAll('"', "'")}"`;
}

export function chainSpec(chain: NftChain): string {
  if (!chain.hook) return '';
  const { type, hook, priority } = chain.hook;
  return ` { type ${type} hook ${hook} priority ${priority}; policy accept; }`;
}

export function setSpec(set: NftSet): string {
  const parts = [`type ${set.type};`];
  if (set.dynamicTimeoutSeconds !== undefined) parts.push('flags dynamic,timeout;', `timeout ${set.dynamicTimeoutSeconds}s;`);
  if (set.comment) parts.push(`comment ${quote(set.comment)};`);
  return ` { ${parts.join(' ')} }`;
}

export function mapSpec(map: NftMap): string {
  const parts = [`type ${map.type};`];
  if (map.comment) parts.push(`comment ${quote(map.comment)};`);
  return ` { ${parts.join(' ')} }`;
}

/** Chains that were in the table and are no longer wanted: flushed now, deleted a sync later. */
export interface StaleChains {
  /** Chain name to the time (ms) it went stale. */
  readonly since: Map<string, number>;
}

export interface TransactionPlan {
  /** The nft script, one command a line; empty when nothing changes. */
  readonly script: string;
  /** Chains flushed by this script that must be deleted later (a map element may still point at them). */
  readonly staled: readonly string[];
  /** Commands in the script, for the metrics. */
  readonly commands: number;
}

/** What is in the kernel's table as read back (names and the spec of each set and map), for a full sync. */
export interface ExistingTable {
  readonly chains: ReadonlySet<string>;
  /** Base chains with their hook, as listed. */
  readonly hooks: ReadonlyMap<string, NftHook>;
  /** Set name to its spec (type and timeout) as listed, to tell whether `add set` would clash. */
  readonly sets: ReadonlyMap<string, { type: string; timeoutSeconds?: number }>;
  readonly maps: ReadonlyMap<string, { type: string }>;
}

/**
 * The script that takes the kernel from `applied` (what this process last wrote, when it knows) to
 * `desired`, as one transaction: nft applies a script whole or not at all, so packets see the old
 * rules or the new ones, never a table half written and never an empty one.
 *
 * A full sync (`applied` undefined) writes every chain, set and map anew (flushing each in the same
 * transaction it is refilled in) and drops what `existing` holds beyond the desired table: that is how
 * a restarted proxy takes over the table its predecessor left, without a moment of no rules. A partial
 * sync writes only what changed: chains whose rules differ, map elements added, changed or removed.
 * Affinity sets are never flushed: they hold the clients' affinities.
 */
export function planTransaction(desired: NftTable, applied: NftTable | undefined, existing: ExistingTable | undefined): TransactionPlan {
  const t = `${desired.family} ${desired.name}`;
  const lines: string[] = [];
  const staled: string[] = [];
  const full = applied === undefined;
  if (full) lines.push(`add table ${t} { comment ${quote(desired.comment)}; }`);

  const chainsBefore = full ? (existing?.chains ?? new Set<string>()) : new Set(applied.chains.keys());
  const rewritten = [...desired.chains.values()].filter((chain) => {
    const before = applied?.chains.get(chain.name);
    return full || !before || !sameRules(before.rules, chain.rules);
  });

  // 1. Empty what is rewritten or goes, so that nothing still points at a set or map replaced below.
  for (const chain of rewritten) if (chainsBefore.has(chain.name)) lines.push(`flush chain ${t} ${chain.name}`);
  for (const name of chainsBefore) {
    if (desired.chains.has(name)) continue;
    lines.push(`flush chain ${t} ${name}`);
    staled.push(name);
  }
  // A base chain whose hook changed (a table an older version left) is made anew.
  if (full && existing) {
    for (const chain of desired.chains.values()) {
      const had = existing.hooks.get(chain.name);
      if (had && (!chain.hook || had.type !== chain.hook.type || had.hook !== chain.hook.hook || had.priority !== chain.hook.priority))
        lines.push(`delete chain ${t} ${chain.name}`);
    }
  }

  // 2. Chains, sets and maps, before any rule or element points at them.
  for (const chain of desired.chains.values()) if (full || !applied.chains.has(chain.name)) lines.push(`add chain ${t} ${chain.name}${chainSpec(chain)}`);
  for (const set of desired.sets.values()) {
    const had = full ? existing?.sets.get(set.name) : specOfSet(applied.sets.get(set.name));
    const clash = had !== undefined && (had.type !== set.type || had.timeoutSeconds !== set.dynamicTimeoutSeconds);
    if (clash) lines.push(`delete set ${t} ${set.name}`);
    if (full || had === undefined || clash) lines.push(`add set ${t} ${set.name}${setSpec(set)}`);
  }
  for (const map of desired.maps.values()) {
    const had = full ? existing?.maps.get(map.name) : applied.maps.get(map.name);
    const clash = had !== undefined && had.type !== map.type;
    if (clash) lines.push(`delete map ${t} ${map.name}`);
    if (full || had === undefined || clash) lines.push(`add map ${t} ${map.name}${mapSpec(map)}`);
  }

  // 3. Rules.
  for (const chain of rewritten) for (const rule of chain.rules) lines.push(`add rule ${t} ${chain.name} ${rule}`);

  // 4. Elements: only the difference when the set or map is known to hold exactly the applied ones.
  for (const set of desired.sets.values()) {
    if (set.dynamicTimeoutSeconds !== undefined) continue;
    const before = applied?.sets.get(set.name);
    if (before && before.type === set.type) {
      const had = new Set(before.elements);
      const want = new Set(set.elements);
      const gone = before.elements.filter((e) => !want.has(e));
      const added = set.elements.filter((e) => !had.has(e));
      if (gone.length) lines.push(`delete element ${t} ${set.name} { ${gone.join(', ')} }`);
      if (added.length) lines.push(`add element ${t} ${set.name} { ${added.join(', ')} }`);
      continue;
    }
    lines.push(`flush set ${t} ${set.name}`);
    if (set.elements.length) lines.push(`add element ${t} ${set.name} { ${set.elements.join(', ')} }`);
  }
  for (const map of desired.maps.values()) {
    const before = applied?.maps.get(map.name);
    if (before && before.type === map.type) {
      const gone: string[] = [];
      const added: string[] = [];
      for (const [key, value] of before.elements) if (map.elements.get(key) !== value) gone.push(key);
      for (const [key, value] of map.elements) if (before.elements.get(key) !== value) added.push(`${key} : ${value}`);
      if (gone.length) lines.push(`delete element ${t} ${map.name} { ${gone.join(', ')} }`);
      if (added.length) lines.push(`add element ${t} ${map.name} { ${added.join(', ')} }`);
      continue;
    }
    lines.push(`flush map ${t} ${map.name}`);
    if (map.elements.size) lines.push(`add element ${t} ${map.name} { ${[...map.elements].map(([k, v]) => `${k} : ${v}`).join(', ')} }`);
  }

  // 5. Sets and maps no longer wanted (the rules that used them are gone above). Stale chains stay,
  // empty, until no map element can point at them any more (see planStaleChainDeletion).
  const setsBefore = full ? [...(existing?.sets.keys() ?? [])] : [...applied.sets.keys()];
  for (const name of setsBefore) if (!desired.sets.has(name)) lines.push(`delete set ${t} ${name}`);
  const mapsBefore = full ? [...(existing?.maps.keys() ?? [])] : [...applied.maps.keys()];
  for (const name of mapsBefore) if (!desired.maps.has(name)) lines.push(`delete map ${t} ${name}`);

  return { script: lines.length ? `${lines.join('\n')}\n` : '', staled, commands: lines.length };
}

function specOfSet(set: NftSet | undefined): { type: string; timeoutSeconds?: number } | undefined {
  return set && { type: set.type, timeoutSeconds: set.dynamicTimeoutSeconds };
}

function sameRules(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((rule, i) => rule === b[i]);
}

/** The script that deletes chains gone stale at least `ageMs` ago; their names are taken out of `stale`. */
export function planStaleChainDeletion(family: NftFamily, table: string, stale: Map<string, number>, now: number, ageMs: number): string {
  const lines: string[] = [];
  for (const [name, since] of stale) {
    if (now - since < ageMs) continue;
    lines.push(`delete chain ${family} ${table} ${name}`);
    stale.delete(name);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
