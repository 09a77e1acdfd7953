/**
 * The syntax of one kind of flag value: how an occurrence on the command line becomes a value and how
 * a value is shown as a default in help. Kept free of flag names so one type serves many flags.
 */
export interface FlagType<T> {
  /** The type word help shows after the flag name; empty for bool, as pflag prints it. */
  readonly name: string;
  /** False for bool only: `--x` alone means true, and a value must be attached with `=` or follow it. */
  readonly requiresValue: boolean;
  /**
   * Parses one occurrence. `previous` is what earlier occurrences of the same flag in this argv
   * produced (undefined for the first), so list and map types merge repeats while the default is
   * replaced. Throws an Error whose message is the reason the text is invalid.
   */
  parse(raw: string, previous: T | undefined): T;
  /** The value as help shows it in `(default X)`. */
  format(value: T): string;
}

/** Value type carried by a FlagType. */
export type ValueOf<F> = F extends FlagType<infer T> ? T : never;
