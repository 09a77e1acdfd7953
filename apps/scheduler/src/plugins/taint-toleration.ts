import { findUntoleratedTaint, isDoNotScheduleTaint, toleratesTaint, type Toleration } from '@svc/api';
import { defaultNormalize, type FilterPlugin, type ScorePlugin } from '../framework/plugin';

/** `node(s) had untolerated taint {key: value}`, as Kubernetes words it. */
export function untoleratedTaintReason(key: string, value: string | undefined): string {
  return `node(s) had untolerated taint {${key}: ${value ?? ''}}`;
}

/** A node's NoSchedule and NoExecute taints keep off the pods that do not tolerate them. */
export const taintTolerationFilter: FilterPlugin = {
  name: 'TaintToleration',
  filter(state, node) {
    const taint = findUntoleratedTaint(node.node?.spec?.taints, state.pod.pod.spec.tolerations, isDoNotScheduleTaint);
    return taint === undefined ? undefined : untoleratedTaintReason(taint.key, taint.value);
  },
  // No eviction changes the node itself.
  unresolvable: () => true,
  curedBy: (e) => e.resource === 'Node' && (e.action === 'Add' || e.changes.has('taint')),
};

const PREFER_TOLERATIONS = 'TaintToleration/prefer';

/** Fewer untolerated PreferNoSchedule taints score higher. */
export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  preScore(state) {
    const tolerations: Toleration[] = (state.pod.pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    state.write(PREFER_TOLERATIONS, tolerations);
  },
  score(state, node) {
    const tolerations = state.read<Toleration[]>(PREFER_TOLERATIONS) ?? [];
    let untolerated = 0;
    for (const taint of node.node?.spec?.taints ?? []) {
      if (taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => toleratesTaint(t, taint))) untolerated++;
    }
    return untolerated;
  },
  normalize: (_, __, scores) => defaultNormalize(scores, true),
};
