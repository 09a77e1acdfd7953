import { TAINT_NODE_NOT_READY, type Taint } from '@svc/api';
import type { AdmissionPlugin } from './admission';

/**
 * Kubernetes' TaintNodesByCondition: a new Node starts with `node.kubernetes.io/not-ready:NoSchedule`,
 * so that nothing is scheduled to it before its agent reports Ready; the node lifecycle controller
 * removes the taint then.
 */
export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    admit(attributes) {
      const def = attributes.definition;
      if (def.group !== '' || def.resource !== 'nodes' || attributes.subresource !== '' || attributes.operation !== 'CREATE') return;
      const node = attributes.object;
      if (node === undefined) return;
      const spec = (node.spec ??= {}) as { taints?: unknown };
      if (typeof spec !== 'object' || spec === null) return;
      if (spec.taints !== undefined && !Array.isArray(spec.taints)) return;
      const taints = (spec.taints as Taint[] | undefined) ?? [];
      if (taints.some((t) => typeof t === 'object' && t !== null && t.key === TAINT_NODE_NOT_READY && t.effect === 'NoSchedule')) return;
      spec.taints = [...taints, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }];
    },
  };
}
