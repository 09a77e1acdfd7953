import { LABEL_REGION, LABEL_REGION_LEGACY, LABEL_ZONE, LABEL_ZONE_LEGACY } from '@svc/api';
import type { NodeInfo } from '../cache/node-info';
import { MAX_NODE_SCORE, type ScorePlugin } from '../framework/plugin';

/** Two thirds of the spreading score comes from zones when nodes have them, as in Kubernetes' SelectorSpread. */
const ZONE_WEIGHTING = 2 / 3;

/** Kubernetes' zone key of a node: region and zone, empty when it has neither. */
export function zoneKey(node: NodeInfo): string {
  const labels = node.node?.metadata?.labels ?? {};
  const zone = labels[LABEL_ZONE] ?? labels[LABEL_ZONE_LEGACY] ?? '';
  const region = labels[LABEL_REGION] ?? labels[LABEL_REGION_LEGACY] ?? '';
  return zone === '' && region === '' ? '' : `${region}:\u0000:${zone}`;
}

/**
 * Spreads the pods of one controller owner (a ReplicaSet's, say) across nodes and zones: nodes and
 * zones holding fewer of them score higher (Kubernetes' default spreading, SelectorSpread's scoring).
 */
export const ownerSpreadScore: ScorePlugin = {
  name: 'PodTopologySpread',
  weight: 2,
  score(state, node) {
    const owner = state.pod.ownerUid;
    return owner === undefined ? 0 : (node.ownerCounts.get(owner) ?? 0);
  },
  normalize(_, nodes, scores) {
    let maxByNode = 0;
    const byZone = new Map<string, number>();
    const zones: string[] = nodes.map(zoneKey);
    scores.forEach((count, i) => {
      maxByNode = Math.max(maxByNode, count);
      if (zones[i] !== '') byZone.set(zones[i], (byZone.get(zones[i]) ?? 0) + count);
    });
    let maxByZone = 0;
    for (const count of byZone.values()) maxByZone = Math.max(maxByZone, count);
    for (let i = 0; i < scores.length; i++) {
      let score = maxByNode > 0 ? (MAX_NODE_SCORE * (maxByNode - scores[i])) / maxByNode : MAX_NODE_SCORE;
      if (byZone.size > 0 && zones[i] !== '') {
        const zoneScore = maxByZone > 0 ? (MAX_NODE_SCORE * (maxByZone - (byZone.get(zones[i]) ?? 0))) / maxByZone : MAX_NODE_SCORE;
        score = score * (1 - ZONE_WEIGHTING) + ZONE_WEIGHTING * zoneScore;
      }
      scores[i] = Math.trunc(score);
    }
  },
};
