import type { FlagType } from '../flags/flag-type';

/** `secure-port` -> `securePort`, at the type level. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** `secure-port` -> `securePort`. */
export function camelCase<S extends string>(name: S): CamelCase<S> {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;
}

/** What a per-flag check returns: nothing when the value is fine, else the reason, optionally naming the offending entry. */
export type CheckResult = string | { value: string; reason: string } | undefined;

/** Flags that stop normal parsing: help prints usage, version prints the program version. */
export type FlagAction = 'help' | 'version';

/** One declared flag. `K` is its key in the options object, `T` its value, `D` whether it has a default. */
export interface FlagDef<K extends string = string, T = unknown, D extends boolean = boolean> {
  readonly name: string;
  readonly key: K;
  readonly shorthand?: string;
  readonly type: FlagType<T>;
  readonly default?: T;
  readonly hasDefault: D;
  /** Help text; for a flag from the specification, its Meaning column. */
  readonly help: string;
  readonly action?: FlagAction;
  /** Runs on each occurrence's parsed value (defaults are trusted); the error names the flag and the text given. */
  check?(value: T): CheckResult;
}

interface FlagInput<N extends string, T> {
  name: N;
  type: FlagType<T>;
  help: string;
  shorthand?: string;
  check?(value: T): CheckResult;
}

/** Declares a flag; its options key is the camelCase of its name, and its value is `undefined` unless given when there is no default. */
export function flag<const N extends string, T>(input: FlagInput<N, T> & { default: NoInfer<T> }): FlagDef<CamelCase<N>, T, true>;
export function flag<const N extends string, T>(input: FlagInput<N, T> & { default?: undefined }): FlagDef<CamelCase<N>, T, false>;
export function flag<const N extends string, T>(input: FlagInput<N, T> & { default?: T }): FlagDef<CamelCase<N>, T, boolean> {
  return { ...input, key: camelCase(input.name), hasDefault: 'default' in input && input.default !== undefined };
}
