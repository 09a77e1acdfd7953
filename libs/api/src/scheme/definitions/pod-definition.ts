import { PodSchema, type Pod, type ContainerStatus } from '../../kinds/core/pod';
import { timestampSince } from '../human-duration';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import type { KindStrategy } from '../kind-strategy';
import { as, defineKind } from './define-kind';
import { podBinding } from './pod-binding';
import { podEviction } from './pod-eviction';
import { podEphemeralContainers, validateNoEphemeralContainersOnCreate } from './pod-ephemeral-containers';
import { podQosClass } from './pod-qos';
import { POD_CONNECT_SUBRESOURCES } from './pod-connect';
import { defaultPodOnly, defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { validatePodUpdate } from './pod-update-rules';
import { POD_PROXY } from './proxy-locations';

/** Reason Kubernetes' node controller puts on pods of an unreachable node. */
const NODE_LOST_REASON = 'NodeLost';

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Kubernetes' printPod: the READY, STATUS and RESTARTS cells. */
export function summarizePod(pod: Pod, now: Date): PodSummary {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  const total = (spec.containers ?? []).length;
  let ready = 0;
  let restarts = 0;
  let lastRestart: string | undefined;
  let reason: string = status.reason || status.phase || '';

  const noteRestart = (c: ContainerStatus) => {
    restarts += c.restartCount ?? 0;
    lastRestart = later(lastRestart, c.lastState?.terminated?.finishedAt);
  };

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    noteRestart(c);
    const terminated = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (terminated && terminated.exitCode === 0) continue;
    if (terminated) {
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
          ? `Init:Signal:${terminated.signal}`
          : `Init:ExitCode:${terminated.exitCode}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      noteRestart(c);
      const terminated = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) reason = status.reason === NODE_LOST_REASON ? 'Unknown' : 'Terminating';

  return {
    ready: `${ready}/${total}`,
    status: reason,
    restarts: lastRestart ? `${restarts} (${timestampSince(lastRestart, now)} ago)` : String(restarts),
  };
}

// Three cells share one computation per row; keyed by the clock too, as cached objects are rendered again later.
const summaries = new WeakMap<ApiObject, { now: Date; summary: PodSummary }>();
function summary(obj: ApiObject, now: Date): PodSummary {
  const hit = summaries.get(obj);
  if (hit && hit.now === now) return hit.summary;
  const computed = summarizePod(as<Pod>(obj), now);
  summaries.set(obj, { now, summary: computed });
  return computed;
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions = pod.status?.conditions ?? [];
  const passing = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${passing}/${gates.length}`;
}

/**
 * Kubernetes' pod strategy: a pod starts Pending with its QoS class (PrepareForCreate), keeps no
 * generation (1.32: PodObservedGenerationTracking is later); a delete of a pod bound to a node and still running
 * waits for its node agent (the request's gracePeriodSeconds, else terminationGracePeriodSeconds, else
 * 30), one that is unbound or finished goes at once; delete answers with the pod. `binding` (a POST of
 * a Binding) and `eviction` (a POST of an Eviction) are served by the API server's REST of each;
 * `ephemeralcontainers` reads and writes the pod, taking only additions to its ephemeral containers.
 */
export const podStrategy: KindStrategy = {
  tracksGeneration: false,
  podSpec: { path: ['spec'], template: false },
  prepareForCreate(pod) {
    pod.status = { phase: 'Pending', qosClass: podQosClass(pod.spec) };
  },
  validateUpdate: validatePodUpdate,
  returnDeletedObject: true,
  connect: POD_CONNECT_SUBRESOURCES,
  proxy: POD_PROXY,
  deletionGracePeriodSeconds(pod, requestedSeconds) {
    const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    return Math.max(0, requestedSeconds ?? spec.terminationGracePeriodSeconds ?? 30);
  },
  subresources: { binding: { create: podBinding }, ephemeralcontainers: podEphemeralContainers, eviction: { create: podEviction } },
  // Kubernetes' podStatusStrategy: a status write takes labels and annotations, never the spec, a
  // deletion mark or the owners.
  status: { resetFields: [['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']] },
};

export const podDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Pod',
  resource: 'pods',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: { status: true },
  schema: PodSchema,
  fieldSelectors: {
    'spec.nodeName': (o) => as<Pod>(o).spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => as<Pod>(o).spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => as<Pod>(o).spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => as<Pod>(o).spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(as<Pod>(o).spec?.hostNetwork ?? false),
    'status.phase': (o) => as<Pod>(o).status?.phase ?? '',
    'status.podIP': (o) => as<Pod>(o).status?.podIP ?? '',
    'status.nominatedNodeName': (o) => as<Pod>(o).status?.nominatedNodeName ?? '',
  },
  columns: [
    nameColumn(),
    column('Ready', 'string', (o, { now }) => summary(o, now).ready, { description: 'The aggregate readiness state of this pod for accepting traffic.' }),
    column('Status', 'string', (o, { now }) => summary(o, now).status, { description: 'The aggregate status of the containers in this pod.' }),
    column('Restarts', 'string', (o, { now }) => summary(o, now).restarts, {
      description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    }),
    ageColumn(),
    column('IP', 'string', (o) => as<Pod>(o).status?.podIPs?.[0]?.ip || as<Pod>(o).status?.podIP || '<none>', {
      priority: 1,
      description: 'IP address allocated to the pod.',
    }),
    column('Node', 'string', (o) => as<Pod>(o).spec?.nodeName || '<none>', { priority: 1, description: 'Node the pod is bound to.' }),
    column('Nominated Node', 'string', (o) => as<Pod>(o).status?.nominatedNodeName || '<none>', {
      priority: 1,
      description: 'Node the scheduler nominated for preemption.',
    }),
    column('Readiness Gates', 'string', (o) => readinessGates(as<Pod>(o)), {
      priority: 1,
      description: 'Readiness gates passing over readiness gates declared.',
    }),
  ],
  defaultHooks: [
    (o) => {
      defaultPodSpec(o.spec);
      defaultPodOnly(o.spec);
    },
  ],
  validationRules: [(o) => validatePodSpec(o.spec, 'spec'), (o, current) => (current === undefined ? validateNoEphemeralContainersOnCreate(o) : [])],
  strategy: podStrategy,
});
