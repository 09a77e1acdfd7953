import { bool } from '../flags/bool';
import type { FlagAction, FlagDef } from './flag';

/** Flags shown together in help under `<title> flags:`. */
export interface FlagGroup {
  readonly title: string;
  readonly flags: readonly FlagDef[];
}

/** One process's declarative flag table. */
export interface FlagTable<G extends readonly FlagGroup[] = readonly FlagGroup[]> {
  /** Program name used in usage and version output. */
  readonly program: string;
  /** Paragraph printed above the usage line. */
  readonly description: string;
  readonly groups: G;
}

type TableFlags<T extends FlagTable> = T['groups'][number]['flags'][number];
type ValueOfFlag<E extends FlagDef> = ReturnType<E['type']['parse']>;

/** The options object a table parses into: one camelCase key per flag, `T | undefined` unless the flag has a default. */
export type OptionsOf<T extends FlagTable> = {
  -readonly [E in TableFlags<T> as E extends { readonly action: FlagAction } ? never : E['key']]: E['hasDefault'] extends true
    ? ValueOfFlag<E>
    : ValueOfFlag<E> | undefined;
};

/** A flag whose problem a cross-flag rule reports, with the text shown; `value` defaults to what was given (or the default). */
export interface Problem {
  flag: string;
  value?: string;
  reason: string;
}

/** What the command line said, for rules that depend on whether a flag was given rather than defaulted. */
export interface GivenFlags {
  has(flag: string): boolean;
  /** The texts given for a flag, in order (empty when not given). */
  raw(flag: string): readonly string[];
}

/** A cross-flag validation rule; returns the first problem found. */
export type Rule<O> = (options: Readonly<O>, given: GivenFlags) => Problem | undefined;

/** A table with its rules: what the parser needs. */
export interface FlagSet<O> extends FlagTable {
  readonly rules: readonly Rule<O>[];
}

/** Declares a process's flag table; keeps literal flag names so OptionsOf can derive the options type. */
export function flagTable<const G extends readonly FlagGroup[]>(table: FlagTable<G>): FlagTable<G> {
  const seen = new Set<string>();
  for (const def of table.groups.flatMap((g) => g.flags)) {
    const names = [`--${def.name}`, ...(def.shorthand === undefined ? [] : [`-${def.shorthand}`])];
    for (const name of names) {
      if (seen.has(name)) throw new Error(`flag ${name} is declared twice in ${table.program}`);
      seen.add(name);
    }
  }
  return table;
}

/** Attaches cross-flag rules to a table. */
export function defineFlagSet<T extends FlagTable>(table: T, rules: readonly Rule<OptionsOf<T>>[]): FlagSet<OptionsOf<T>> {
  return { ...table, rules };
}

/** `-h, --help`: prints help and exits 0. */
export function helpFlag(program: string): FlagDef<'help', boolean, false> & { readonly action: 'help' } {
  return { name: 'help', key: 'help', shorthand: 'h', type: bool, hasDefault: false, help: `help for ${program}`, action: 'help' };
}

/** `--version`: prints `<program> v<version>` and exits 0. */
export function versionFlag(): FlagDef<'version', boolean, false> & { readonly action: 'version' } {
  return { name: 'version', key: 'version', type: bool, hasDefault: false, help: 'print version information and quit', action: 'version' };
}
