const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/**
 * The value of a resource quantity (`100m`, `1Gi`, `1e3`, or a plain number) as a number, for
 * comparing and adding quantities; undefined for text that is not a quantity.
 */
export function quantityValue(quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  if (typeof quantity !== 'string') return undefined;
  const m = QUANTITY.exec(quantity.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[3] !== undefined) return base * 10 ** Number(m[3]);
  const suffix = m[2] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix]);
}
