import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CommandError, runCommand } from '../host/run-command';
import type { ExistingTable, NftFamily, NftHook } from './nft-table';

/** Where a command is on PATH (and the sbin directories, which a non-login root shell may lack), or undefined. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** The `nft` command, talking to the kernel of this process's network namespace. */
export class NftCommand {
  constructor(readonly path: string) {}

  /** The nft command on this host, or why there is none usable (one line). */
  static async locate(): Promise<NftCommand | string> {
    const path = findExecutable('nft');
    if (!path) return 'the nft command is not installed (Debian: apt-get install nftables)';
    const nft = new NftCommand(path);
    // A check run (-c) goes through the kernel without committing: it fails where nf_tables is missing.
    const probe = await runCommand(path, ['-c', '-f', '-'], 'add table ip svc-proxy-probe\nadd chain ip svc-proxy-probe c\n').catch((error: Error) => ({
      code: -1,
      stdout: '',
      stderr: error.message,
    }));
    if (probe.code !== 0) return `nft cannot program this kernel: ${probe.stderr.trim().split('\n')[0]}`;
    return nft;
  }

  /** Applies a script as one transaction; throws CommandError with nft's message when the kernel refuses it. */
  async apply(script: string): Promise<void> {
    if (script === '') return;
    const result = await runCommand(this.path, ['-f', '-'], script);
    if (result.code !== 0) throw new CommandError('nft -f -', result);
  }

  /** What the table holds, by name, or undefined when there is no such table. */
  async read(family: NftFamily, table: string): Promise<ExistingTable | undefined> {
    const result = await runCommand(this.path, ['-j', 'list', 'table', family, table]);
    if (result.code !== 0) {
      if (/No such file or directory/.test(result.stderr)) return undefined;
      throw new CommandError(`nft -j list table ${family} ${table}`, result);
    }
    return parseTableListing(result.stdout);
  }

  /** Deletes the table; false when there was none. */
  async deleteTable(family: NftFamily, table: string): Promise<boolean> {
    const result = await runCommand(this.path, ['delete', 'table', family, table]);
    if (result.code === 0) return true;
    if (/No such file or directory/.test(result.stderr)) return false;
    throw new CommandError(`nft delete table ${family} ${table}`, result);
  }
}

interface ListedObject {
  chain?: { name: string; type?: string; hook?: string; prio?: number };
  set?: { name: string; type: string | string[]; timeout?: number };
  map?: { name: string; type: string | string[]; map: string };
}

const typeText = (type: string | string[]): string => (Array.isArray(type) ? type.join(' . ') : type);

/** The names of `nft -j list table`'s chains, sets and maps, with the specs that decide whether they can be reused. */
export function parseTableListing(json: string): ExistingTable {
  const doc = JSON.parse(json) as { nftables?: ListedObject[] };
  const chains = new Set<string>();
  const hooks = new Map<string, NftHook>();
  const sets = new Map<string, { type: string; timeoutSeconds?: number }>();
  const maps = new Map<string, { type: string }>();
  for (const object of doc.nftables ?? []) {
    if (object.chain) {
      chains.add(object.chain.name);
      const { type, hook, prio } = object.chain;
      if (type && hook && prio !== undefined) hooks.set(object.chain.name, { type: type as NftHook['type'], hook: hook as NftHook['hook'], priority: prio });
    } else if (object.set) {
      sets.set(object.set.name, { type: typeText(object.set.type), ...(object.set.timeout !== undefined ? { timeoutSeconds: object.set.timeout } : {}) });
    } else if (object.map) {
      maps.set(object.map.name, { type: `${typeText(object.map.type)} : ${object.map.map}` });
    }
  }
  return { chains, hooks, sets, maps };
}
