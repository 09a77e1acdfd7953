import { readCsvRecord, writeCsvRecord } from './csv-record';
import type { FlagType } from './flag-type';

/**
 * pflag's stringToString: `k=v,k2=v2`, repeatable, later keys win. With exactly one `=` the whole text
 * is one pair, so a key or value may hold commas (`metric,label=v1,v2`); with more, pairs are CSV fields.
 */
export const stringToString: FlagType<Record<string, string>> = {
  name: 'stringToString',
  requiresValue: true,
  parse: (raw, previous) => {
    const equals = raw.split('=').length - 1;
    if (equals === 0) throw new Error(`${raw} must be formatted as key=value`);
    const pairs = equals === 1 ? [raw.replace(/^"|"$/g, '')] : readCsvRecord(raw);
    const out: Record<string, string> = { ...(previous ?? {}) };
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at === -1) throw new Error(`${pair} must be formatted as key=value`);
      out[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return out;
  },
  format: (value) => `[${writeCsvRecord(Object.entries(value).map(([k, v]) => `${k}=${v}`))}]`,
};
