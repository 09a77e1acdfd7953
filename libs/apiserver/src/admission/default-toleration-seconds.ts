import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, type Toleration } from '@svc/api';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Kubernetes' default for both tolerations (`--default-not-ready-toleration-seconds`, `--default-unreachable-toleration-seconds`). */
export const DEFAULT_TOLERATION_SECONDS = 300;

function isPod(attributes: AdmissionAttributes): boolean {
  return attributes.definition.group === '' && attributes.definition.resource === 'pods';
}

/** Whether a toleration already covers the NoExecute taint `key` (an empty key or effect covers any). */
function covers(toleration: Toleration, key: string): boolean {
  return (!toleration.key || toleration.key === key) && (!toleration.effect || toleration.effect === 'NoExecute');
}

/**
 * Kubernetes' DefaultTolerationSeconds: a pod that tolerates neither `node.kubernetes.io/not-ready`
 * nor `node.kubernetes.io/unreachable` for NoExecute gets a toleration of each for the configured
 * seconds, so that it is evicted from a failed node that long after the node lifecycle controller
 * taints it. Pods proper only, not their subresources.
 */
export function defaultTolerationSeconds(options: { notReadySeconds?: number; unreachableSeconds?: number } = {}): AdmissionPlugin {
  const defaults: Array<[string, number]> = [
    [TAINT_NODE_NOT_READY, options.notReadySeconds ?? DEFAULT_TOLERATION_SECONDS],
    [TAINT_NODE_UNREACHABLE, options.unreachableSeconds ?? DEFAULT_TOLERATION_SECONDS],
  ];
  return {
    name: 'DefaultTolerationSeconds',
    admit(attributes) {
      if (!isPod(attributes) || attributes.subresource !== '' || (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE')) return;
      const spec = attributes.object?.spec as { tolerations?: unknown } | undefined;
      if (spec === undefined || spec === null || typeof spec !== 'object') return;
      // A malformed list is the schema's to refuse.
      if (spec.tolerations !== undefined && !Array.isArray(spec.tolerations)) return;
      const tolerations = ((spec.tolerations as unknown[] | undefined) ?? []).filter((t): t is Toleration => typeof t === 'object' && t !== null);
      const added = defaults
        .filter(([key]) => !tolerations.some((t) => covers(t, key)))
        .map(([key, seconds]): Toleration => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }));
      if (added.length > 0) spec.tolerations = [...((spec.tolerations as unknown[] | undefined) ?? []), ...added];
    },
  };
}
