import { parseGoBool } from './bool';
import type { FlagType } from './flag-type';

function splitPairs(raw: string): Array<[string, string | undefined]> {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const at = s.indexOf('=');
      const key = (at === -1 ? s : s.slice(0, at)).trim();
      if (key === '') throw new Error(`${JSON.stringify(s)} has an empty key`);
      return [key, at === -1 ? undefined : s.slice(at + 1).trim()];
    });
}

function formatSorted(value: Readonly<Record<string, string | boolean>>): string {
  return Object.keys(value)
    .sort()
    .map((k) => `${k}=${String(value[k])}`)
    .join(',');
}

/**
 * `key=value,...` (Kubernetes' mapStringString), repeatable and merged, spaces around keys and values
 * trimmed. With `missingValue`, a bare `key` means `key=<missingValue>` (`--runtime-config api/all`);
 * without it a bare key is an error (`--oidc-required-claim`).
 */
export function keyValuePairs(options: { missingValue?: string } = {}): FlagType<Record<string, string>> {
  return {
    name: 'mapStringString',
    requiresValue: true,
    parse: (raw, previous) => {
      const out: Record<string, string> = { ...(previous ?? {}) };
      for (const [key, value] of splitPairs(raw)) {
        const resolved = value ?? options.missingValue;
        if (resolved === undefined) throw new Error(`malformed pair ${JSON.stringify(key)}, expect key=value`);
        out[key] = resolved;
      }
      return out;
    },
    format: formatSorted,
  };
}

/** `name=bool,...` (Kubernetes' feature gates): values true or false in any letter case, or strconv.ParseBool's 1/0/t/f. */
export const mapStringBool: FlagType<Record<string, boolean>> = {
  name: 'mapStringBool',
  requiresValue: true,
  parse: (raw, previous) => {
    const out: Record<string, boolean> = { ...(previous ?? {}) };
    for (const [key, value] of splitPairs(raw)) {
      if (value === undefined) throw new Error(`missing bool value for ${key}`);
      const lower = value.toLowerCase();
      if (lower === 'true' || lower === 'false') out[key] = lower === 'true';
      else {
        try {
          out[key] = parseGoBool(value);
        } catch {
          throw new Error(`invalid value of ${key}=${value}, want true or false`);
        }
      }
    }
    return out;
  },
  format: formatSorted,
};
