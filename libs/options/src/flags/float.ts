import type { FlagType } from './flag-type';

/** `float`: a finite decimal number (`0.1`, `20`, `1e-2`); NaN and infinities are refused as no flag wants them. */
export const float: FlagType<number> = {
  name: 'float',
  requiresValue: true,
  parse: (raw) => {
    if (!/^[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?$/.test(raw) || /(^|[^\d])_|_($|[^\d])/.test(raw)) {
      throw new Error(`parsing ${JSON.stringify(raw)}: invalid syntax`);
    }
    const value = Number(raw.replace(/_/g, ''));
    if (!Number.isFinite(value)) throw new Error(`parsing ${JSON.stringify(raw)}: value out of range`);
    return value;
  },
  // Go prints float64 flag defaults with %v, which matches JS for the values flags use (0.1, 20, 0.55).
  format: (value) => String(value),
};
