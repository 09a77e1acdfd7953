import { readCsvRecord, writeCsvRecord } from './csv-record';
import type { FlagType } from './flag-type';

/** pflag's stringSlice: comma-separated (CSV quoting allowed) and repeatable; `--x=` clears the default. */
export const strings: FlagType<string[]> = {
  name: 'strings',
  requiresValue: true,
  parse: (raw, previous) => [...(previous ?? []), ...readCsvRecord(raw)],
  format: (value) => `[${writeCsvRecord(value)}]`,
};

/** A `strings` flag whose entries must come from `values`; with `unique`, an entry may appear only once. */
export function stringsOf<const V extends string>(values: readonly V[], options: { unique?: boolean } = {}): FlagType<V[]> {
  const allowed: ReadonlySet<string> = new Set(values);
  return {
    name: 'strings',
    requiresValue: true,
    parse: (raw, previous) => {
      const entries = readCsvRecord(raw);
      const out: V[] = [...(previous ?? [])];
      for (const entry of entries) {
        if (!allowed.has(entry)) throw new Error(`${JSON.stringify(entry)} is not one of: ${values.join(', ')}`);
        if (options.unique && out.includes(entry as V)) throw new Error(`${JSON.stringify(entry)} is given more than once`);
        out.push(entry as V);
      }
      return out;
    },
    format: (value) => `[${writeCsvRecord(value)}]`,
  };
}
