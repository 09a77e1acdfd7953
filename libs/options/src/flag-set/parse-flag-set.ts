import { errorMessage } from '@svc/machinery';
import type { FlagDef } from './flag';
import { FlagError } from './flag-error';
import type { FlagSet, GivenFlags } from './flag-set';
import { renderHelp } from './help';
import { versionText } from './product-version';
import { scanArgv } from './scan-argv';

/** What the process should do after parsing its command line. */
export type ParseOutcome<T> = { action: 'run'; options: T } | { action: 'help'; text: string } | { action: 'version'; text: string };

class HelpRequested extends Error {}

function displayName(def: FlagDef): string {
  return def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`;
}

/**
 * Parses argv (without the node and script entries) against a flag set: Go flag syntax (`--f=v`,
 * `--f v`, `-v 3`, `-v=3`, bool `--f` / `--f=false`), repeatable list and map flags, then defaults,
 * then the set's rules. Throws FlagError with a one-line message.
 */
export function parseFlagSet<O>(set: FlagSet<O>, argv: readonly string[]): ParseOutcome<O> {
  const defs = set.groups.flatMap((g) => g.flags);
  const values = new Map<string, unknown>();
  const raws = new Map<string, string[]>();

  try {
    scanArgv(argv, defs, set.program, ({ def, raw }) => {
      let value: unknown;
      try {
        value = def.type.parse(raw, values.get(def.name));
      } catch (error) {
        throw FlagError.invalidArgument(displayName(def), raw, errorMessage(error));
      }
      const problem = def.check?.(value);
      if (problem !== undefined) {
        const shown = typeof problem === 'string' ? raw : problem.value;
        throw FlagError.invalidArgument(displayName(def), shown, typeof problem === 'string' ? problem : problem.reason);
      }
      values.set(def.name, value);
      raws.set(def.name, [...(raws.get(def.name) ?? []), raw]);
      if (def.action === 'help' && value === true) throw new HelpRequested();
    });
  } catch (error) {
    if (error instanceof HelpRequested) return { action: 'help', text: renderHelp(set) };
    throw error;
  }

  if (defs.some((d) => d.action === 'version' && values.get(d.name) === true)) {
    return { action: 'version', text: versionText(set.program) };
  }

  const options: Record<string, unknown> = {};
  for (const def of defs) {
    if (def.action) continue;
    options[def.key] = values.has(def.name) ? values.get(def.name) : structuredClone(def.default);
  }
  const given: GivenFlags = {
    has: (name) => raws.has(name),
    raw: (name) => raws.get(name) ?? [],
  };
  // The object was built key by key from the same table OptionsOf reads, so it has O's shape.
  const typed = options as O;
  for (const rule of set.rules) {
    const problem = rule(typed, given);
    if (problem === undefined) continue;
    const def = defs.find((d) => d.name === problem.flag);
    const shown =
      problem.value ??
      (given.has(problem.flag) ? given.raw(problem.flag).join(',') : def?.hasDefault && def.default !== undefined ? def.type.format(def.default) : '');
    throw FlagError.invalidArgument(def ? displayName(def) : `--${problem.flag}`, shown, problem.reason);
  }
  return { action: 'run', options: typed };
}
