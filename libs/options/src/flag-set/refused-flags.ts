import type { FlagTable } from './flag-set';

/** Parsed values are plain data (maps may lack a prototype), so their JSON compares them. */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A flag a process accepts only at its default, with the reason; `alsoAccepted` lists other values it honours. */
export interface RefusedFlag {
  readonly flag: string;
  readonly reason: string;
  readonly alsoAccepted?: readonly unknown[];
}

/**
 * The first of `refused` given a value other than its default in the table, as one line naming the
 * flag; undefined when none. An explicit default (common in manifests) is harmless. A reason starting
 * with "is not" follows the flag name as is; any other follows "is not supported: ".
 */
export function refusedFlagProblem(table: FlagTable, refused: readonly RefusedFlag[], options: object): string | undefined {
  const defs = new Map(table.groups.flatMap((g) => g.flags.map((f) => [f.name, f] as const)));
  const values = options as Record<string, unknown>;
  for (const { flag, reason, alsoAccepted = [] } of refused) {
    const def = defs.get(flag);
    if (!def) throw new Error(`--${flag} is not in the flag table of ${table.program}`);
    const value = values[def.key];
    const unset = value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);
    const isDefault = def.default !== undefined ? sameValue(value, def.default) : unset;
    if (isDefault || alsoAccepted.some((v) => sameValue(v, value))) continue;
    return reason.startsWith('is not') ? `--${flag} ${reason}` : `--${flag} is not supported: ${reason}`;
  }
  return undefined;
}
