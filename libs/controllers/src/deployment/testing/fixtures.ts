import type { Deployment, ReplicaSet } from '@svc/api';
import { DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION } from '../deployment-keys';
import type { IntOrPercent } from '../rolling-update-bounds';

/** A Deployment for pure-logic tests: RollingUpdate with the given bounds, or Recreate. */
export function deployment(
  replicas: number,
  options: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent; recreate?: boolean; generation?: number; status?: Deployment['status'] } = {},
): Deployment {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'd-uid', generation: options.generation ?? 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } },
      strategy: options.recreate
        ? { type: 'Recreate' }
        : { type: 'RollingUpdate', rollingUpdate: { maxSurge: options.maxSurge ?? '25%', maxUnavailable: options.maxUnavailable ?? '25%' } },
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
    },
    status: options.status,
  };
}

let counter = 0;

/** A ReplicaSet created `ageSeconds` before a fixed epoch (older ones first), with the given counts. */
export function replicaSet(
  name: string,
  replicas: number,
  options: {
    available?: number;
    statusReplicas?: number;
    ageSeconds?: number;
    revision?: number;
    desired?: number;
    max?: number;
    generation?: number;
    observedGeneration?: number;
  } = {},
): ReplicaSet {
  const annotations: Record<string, string> = {};
  if (options.revision !== undefined) annotations[REVISION_ANNOTATION] = String(options.revision);
  if (options.desired !== undefined) annotations[DESIRED_REPLICAS_ANNOTATION] = String(options.desired);
  if (options.max !== undefined) annotations[MAX_REPLICAS_ANNOTATION] = String(options.max);
  const created = new Date(Date.UTC(2024, 0, 1) - (options.ageSeconds ?? 0) * 1000);
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid-${++counter}`,
      creationTimestamp: `${created.toISOString().slice(0, 19)}Z`,
      annotations,
      generation: options.generation ?? 1,
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } },
    },
    status: {
      replicas: options.statusReplicas ?? replicas,
      availableReplicas: options.available ?? replicas,
      readyReplicas: options.available ?? replicas,
      observedGeneration: options.observedGeneration ?? options.generation ?? 1,
    },
  };
}
