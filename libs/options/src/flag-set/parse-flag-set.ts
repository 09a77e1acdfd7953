import { Command, CommanderError, Option } from 'commander';
import type { FlagDef } from './flag';
import { FlagError } from './flag-error';
import type { FlagSet, GivenFlags } from './flag-set';
import { renderHelp } from './help';
import { versionText } from './product-version';

/** What the process should do after parsing its command line. */
export type ParseOutcome<T> = { action: 'run'; options: T } | { action: 'help'; text: string } | { action: 'version'; text: string };

class HelpRequested {}

function displayName(def: FlagDef): string {
  return def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`;
}

/**
 * pflag accepts `-v=3`; commander would read the value as `=3`. Rewrite it to `-v3`, except where the
 * token is the value of a preceding flag that needs one, and nothing after `--`.
 */
function attachShorthandValues(argv: readonly string[], needsValue: (token: string) => boolean): string[] {
  const out: string[] = [];
  let previousNeedsValue = false;
  let ended = false;
  for (const token of argv) {
    const shorthand = /^-([^-=])=([\s\S]*)$/.exec(token);
    out.push(!ended && !previousNeedsValue && shorthand ? `-${shorthand[1]}${shorthand[2]}` : token);
    if (token === '--' && !previousNeedsValue) ended = true;
    previousNeedsValue = !ended && !previousNeedsValue && needsValue(token);
  }
  return out;
}

function translate(error: CommanderError, program: string, positional: readonly string[]): FlagError {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'commander.unknownOption': {
      const token = quoted.split('=')[0];
      return new FlagError(token.startsWith('--') ? `unknown flag: ${token}` : `unknown shorthand flag: '${token.slice(1, 2)}' in ${token}`);
    }
    case 'commander.optionMissingArgument': {
      const long = /--[^\s<[]+/.exec(quoted)?.[0] ?? quoted;
      return new FlagError(`flag needs an argument: ${long}`);
    }
    case 'commander.excessArguments':
      return new FlagError(`unexpected argument ${JSON.stringify(positional[0] ?? '')}: ${program} takes no positional arguments`);
    default:
      return new FlagError(error.message.replace(/^error: /, '').split('\n')[0]);
  }
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

  const command = new Command(set.program)
    .exitOverride()
    .helpOption(false)
    .allowExcessArguments(false)
    .showSuggestionAfterError(false)
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
  const valueTaking = new Set<string>();
  for (const def of defs) {
    const names = def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`;
    const option = new Option(`${names} ${def.type.requiresValue ? '<value>' : '[value]'}`);
    if (def.type.requiresValue) {
      valueTaking.add(`--${def.name}`);
      if (def.shorthand) valueTaking.add(`-${def.shorthand}`);
    } else {
      option.preset('true');
    }
    option.argParser((raw: string) => {
      let value: unknown;
      try {
        value = def.type.parse(raw, values.get(def.name));
      } catch (error) {
        throw FlagError.invalidArgument(displayName(def), raw, error instanceof Error ? error.message : String(error));
      }
      const problem = def.check?.(value);
      if (problem !== undefined) {
        const shown = typeof problem === 'string' ? raw : problem.value;
        throw FlagError.invalidArgument(displayName(def), shown, typeof problem === 'string' ? problem : problem.reason);
      }
      values.set(def.name, value);
      raws.set(def.name, [...(raws.get(def.name) ?? []), raw]);
      if (def.action === 'help' && value === true) throw new HelpRequested();
      return value;
    });
    command.addOption(option);
  }

  try {
    command.parse(attachShorthandValues(argv, (t) => valueTaking.has(t)), { from: 'user' });
  } catch (error) {
    if (error instanceof HelpRequested) return { action: 'help', text: renderHelp(set) };
    if (error instanceof CommanderError) throw translate(error, set.program, command.args);
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
      (given.has(problem.flag)
        ? given.raw(problem.flag).join(',')
        : def?.hasDefault && def.default !== undefined
          ? def.type.format(def.default)
          : '');
    throw FlagError.invalidArgument(def ? displayName(def) : `--${problem.flag}`, shown, problem.reason);
  }
  return { action: 'run', options: typed };
}
