const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A Kubernetes quantity (`250m`, `1.5Gi`, `2e3`) as a number; NaN when it is none. */
export function parseQuantity(text: string | number | undefined): number {
  if (text === undefined) return 0;
  if (typeof text === 'number') return text;
  const match = /^([+-]?[0-9.]+)([eE][+-]?[0-9]+)?([a-zA-Z]*)$/.exec(text.trim());
  if (!match) return NaN;
  const value = Number(match[1] + (match[2] ?? ''));
  const suffix = match[3];
  if (suffix in BINARY) return value * BINARY[suffix];
  if (suffix in DECIMAL) return value * DECIMAL[suffix];
  return NaN;
}

/** A figure of `resource` for people: cores with millicores, bytes in binary units. */
export function formatQuantity(resource: string, value: number): string {
  if (!Number.isFinite(value)) return '?';
  if (resource === 'cpu') return value < 1 ? `${Math.round(value * 1000)}m` : `${Math.round(value * 100) / 100}`;
  if (resource === 'memory' || resource.endsWith('storage')) {
    const units = ['', 'Ki', 'Mi', 'Gi', 'Ti'];
    let v = value;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return `${Math.round(v * 10) / 10}${units[i]}`;
  }
  return String(Math.round(value * 100) / 100);
}
