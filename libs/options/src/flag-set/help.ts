import type { FlagDef } from './flag';
import type { FlagTable } from './flag-set';

function flagColumn(def: FlagDef): string {
  const names = def.shorthand ? `  -${def.shorthand}, --${def.name}` : `      --${def.name}`;
  return def.type.name === '' ? names : `${names} ${def.type.name}`;
}

function usageColumn(def: FlagDef): string {
  if (!def.hasDefault || def.default === undefined) return def.help;
  const shown = def.type.format(def.default);
  // An empty string default says nothing; pflag leaves it out too. pflag quotes string defaults only.
  if (shown === '' && def.type.name === 'string') return def.help;
  return `${def.help} (default ${def.type.name === 'string' ? JSON.stringify(shown) : shown})`;
}

/** Help in cobra/pflag's layout: description, usage line, then each group with its flags sorted and aligned. */
export function renderHelp(table: FlagTable): string {
  const sections = table.groups
    .filter((g) => g.flags.length > 0)
    .map((group) => {
      const flags = [...group.flags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const width = Math.max(...flags.map((f) => flagColumn(f).length));
      const lines = flags.map((f) => `${flagColumn(f).padEnd(width)}   ${usageColumn(f)}`);
      return `${group.title} flags:\n\n${lines.join('\n')}`;
    });
  return [table.description, `Usage:\n  ${table.program} [flags]`, ...sections].join('\n\n');
}
