import type { FlagType } from './flag-type';

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool. */
export function parseGoBool(text: string): boolean {
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  throw new Error(`parsing ${JSON.stringify(text)}: invalid syntax`);
}

/** `bool`: `--x` alone is true; `--x=false` (any strconv.ParseBool spelling) sets it explicitly. */
export const bool: FlagType<boolean> = {
  name: '',
  requiresValue: false,
  parse: (raw) => parseGoBool(raw),
  format: (value) => String(value),
};
