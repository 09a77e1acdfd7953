import type { FlagType } from './flag-type';

/** Ports base..base+size-1, as Kubernetes' utilnet.PortRange. */
export interface PortRange {
  base: number;
  size: number;
}

function port(text: string, whole: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`unable to parse port range: ${whole}`);
  return Number(text);
}

/** `N1-N2` inclusive, `N1+offset`, or a single `N` meaning N-N; each end in 0..65535 and N1 <= N2. */
export function parsePortRange(text: string): PortRange {
  const value = text.trim();
  const hyphen = value.indexOf('-');
  const plus = value.indexOf('+');
  let low: number;
  let high: number;
  if (hyphen !== -1 && plus === -1) {
    low = port(value.slice(0, hyphen), value);
    high = port(value.slice(hyphen + 1), value);
  } else if (plus !== -1 && hyphen === -1) {
    low = port(value.slice(0, plus), value);
    high = low + port(value.slice(plus + 1), value);
  } else if (plus === -1 && hyphen === -1) {
    low = high = port(value, value);
  } else {
    throw new Error(`unable to parse port range: ${value}`);
  }
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${value}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${value}`);
  return { base: low, size: high - low + 1 };
}

export function formatPortRange(range: PortRange): string {
  return `${range.base}-${range.base + range.size - 1}`;
}

/** Whether `p` lies in the range. */
export function portRangeContains(range: PortRange, p: number): boolean {
  return p >= range.base && p < range.base + range.size;
}

/** `portRange`: see parsePortRange. */
export const portRange: FlagType<PortRange> = {
  name: 'portRange',
  requiresValue: true,
  parse: (raw) => parsePortRange(raw),
  format: formatPortRange,
};
