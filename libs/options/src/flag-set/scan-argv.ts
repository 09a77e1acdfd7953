import type { FlagDef } from './flag';
import { FlagError } from './flag-error';

/** One flag occurrence found on the command line: the flag, its value text, and how it was spelled. */
export interface FlagOccurrence {
  def: FlagDef;
  raw: string;
}

/**
 * Walks argv with Go pflag's syntax and calls `onFlag` for each occurrence, in order:
 * `--name=value`, `--name value`, bool `--name` (a bool takes a value only with `=`), shorthands
 * `-v 3`, `-v=3`, `-v3` and combined bool shorthands (`-hv3`). A bare `-` or any other word is a
 * positional argument, which no process accepts; so is anything after `--`.
 * Errors are pflag's one-line messages. `onFlag` may throw to stop the scan (help does).
 */
export function scanArgv(argv: readonly string[], defs: readonly FlagDef[], program: string, onFlag: (occurrence: FlagOccurrence) => void): void {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const byShorthand = new Map(defs.filter((d) => d.shorthand !== undefined).map((d) => [d.shorthand, d]));
  const positional = (arg: string) => new FlagError(`unexpected argument ${JSON.stringify(arg)}: ${program} takes no positional arguments`);

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      if (i + 1 < argv.length) throw positional(argv[i + 1]);
      return;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const equals = body.indexOf('=');
      const name = equals === -1 ? body : body.slice(0, equals);
      if (name === '' || name.startsWith('-')) throw new FlagError(`bad flag syntax: ${arg}`);
      const def = byName.get(name);
      if (!def) throw new FlagError(`unknown flag: --${name}`);
      if (equals !== -1) onFlag({ def, raw: body.slice(equals + 1) });
      else if (!def.type.requiresValue) onFlag({ def, raw: 'true' });
      else if (i + 1 < argv.length) onFlag({ def, raw: argv[++i] });
      else throw new FlagError(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      let rest = arg.slice(1);
      while (rest !== '') {
        const letter = rest[0];
        const def = byShorthand.get(letter);
        if (!def) throw new FlagError(`unknown shorthand flag: '${letter}' in ${arg}`);
        if (rest[1] === '=') {
          onFlag({ def, raw: rest.slice(2) });
          rest = '';
        } else if (!def.type.requiresValue) {
          onFlag({ def, raw: 'true' });
          rest = rest.slice(1);
        } else if (rest.length > 1) {
          onFlag({ def, raw: rest.slice(1) });
          rest = '';
        } else if (i + 1 < argv.length) {
          onFlag({ def, raw: argv[++i] });
          rest = '';
        } else {
          throw new FlagError(`flag needs an argument: '${letter}' in -${letter}`);
        }
      }
      continue;
    }
    throw positional(arg);
  }
}
