import { LABEL_ZONE } from '@svc/api';
import { parseTaint, type NodeSimulatorOptions } from '@svc/options';
import type { SimulatedNodeSpec } from '@svc/node-simulation';

/** The nodes the flags describe: named or numbered, spread over the zones given. */
export function nodeSpecs(o: NodeSimulatorOptions): SimulatedNodeSpec[] {
  const names = o.nodeNames?.length ? o.nodeNames : Array.from({ length: o.nodes }, (_, i) => `${o.namePrefix}-${i}`);
  const taints = (o.registerWithTaints ?? []).map(parseTaint);
  const zones = o.zones ?? [];
  return names.map((name, i) => ({
    name,
    labels: { ...o.nodeLabels, ...(zones.length ? { [LABEL_ZONE]: zones[i % zones.length] } : {}) },
    taints,
    capacity: o.capacity,
  }));
}
