import { readFile } from 'node:fs/promises';
import type { InterfaceStats } from './summary-types';

/** Interfaces the kubelet's stats leave out, as cAdvisor does: loopback and the host ends of pods' veth pairs. */
const IGNORED = /^(lo|veth.*)$/;

/** The counters of `/proc/<pid>/net/dev`'s text, one entry per interface (in file order). */
export function parseNetDev(text: string): InterfaceStats[] {
  const result: InterfaceStats[] = [];
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (IGNORED.test(name) || fields.length < 16 || fields.some((n) => !Number.isFinite(n))) continue;
    result.push({ name, rxBytes: fields[0], rxErrors: fields[2], txBytes: fields[8], txErrors: fields[10] });
  }
  return result;
}

/** The interfaces of the network namespace `pid` is in (`self` for the agent's own). */
export async function networkInterfaces(pid: number | 'self'): Promise<InterfaceStats[] | undefined> {
  try {
    return parseNetDev(await readFile(`/proc/${pid}/net/dev`, 'utf8'));
  } catch {
    return undefined;
  }
}
