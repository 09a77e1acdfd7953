import { preferredNodeTerms, RequiredNodeAffinity, type NodeSelectorTerm } from '../framework/affinity';
import { defaultNormalize, type FilterPlugin, type ScorePlugin } from '../framework/plugin';

export const ERR_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

const REQUIRED = 'NodeAffinity/required';
const PREFERRED = 'NodeAffinity/preferred';

/** `spec.nodeSelector` and the required node affinity: a node must match both. */
export const nodeAffinityFilter: FilterPlugin = {
  name: 'NodeAffinity',
  preFilter(state) {
    state.write(REQUIRED, RequiredNodeAffinity.of(state.pod.pod));
  },
  filter(state, node) {
    const required = state.read<RequiredNodeAffinity>(REQUIRED) ?? RequiredNodeAffinity.of(state.pod.pod);
    return node.node !== undefined && required.matches(node.node) ? undefined : ERR_NODE_AFFINITY;
  },
  // No eviction changes the node itself.
  unresolvable: () => true,
  curedBy: (e) => e.resource === 'Node' && (e.action === 'Add' || e.changes.has('label')),
};

/** The sum of the weights of the preferred terms a node matches, scaled to 0..100. */
export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  preScore(state) {
    state.write(PREFERRED, preferredNodeTerms(state.pod.pod));
  },
  score(state, node) {
    const terms = state.read<Array<{ weight: number; term: NodeSelectorTerm }>>(PREFERRED) ?? [];
    let total = 0;
    for (const { weight, term } of terms) if (node.node !== undefined && term.matches(node.node)) total += weight;
    return total;
  },
  normalize: (_, __, scores) => defaultNormalize(scores, false),
};
