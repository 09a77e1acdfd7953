import type { FlagType } from './flag-type';

/** `string`: taken verbatim; `--x=` gives the empty string. */
export const string: FlagType<string> = {
  name: 'string',
  requiresValue: true,
  parse: (raw) => raw,
  format: (value) => value,
};

/**
 * A string restricted to `values`; the value type is their union. `refusals` gives a specific reason
 * for values that users may expect to work (a backend this product does not ship, say).
 */
export function oneOf<const V extends string>(values: readonly V[], refusals: Readonly<Record<string, string>> = {}): FlagType<V> {
  const allowed: ReadonlySet<string> = new Set(values);
  return {
    name: 'string',
    requiresValue: true,
    parse: (raw) => {
      const refusal = refusals[raw];
      if (refusal !== undefined) throw new Error(refusal);
      if (!allowed.has(raw)) throw new Error(`must be one of: ${values.join(', ')}`);
      return raw as V;
    },
    format: (value) => value,
  };
}
