import {
  JOB_COMPLETION_INDEX_ANNOTATION,
  JOB_INDEX_FAILURE_COUNT_ANNOTATION,
  JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
  JOB_TRACKING_FINALIZER,
  type Container,
  type Job,
  type Pod,
} from '@svc/api';
import type { ReplicaSet } from '@svc/api';
import { podFromTemplate, type ControllerKind } from '../common/pod-from-template';

/** The owner the pods of a Job name. */
export const JOB_KIND: ControllerKind = { apiVersion: 'batch/v1', kind: 'Job' };

/**
 * The Job as the shared pod helpers (pod-from-template, claim-pods) read a controller of pods: its
 * metadata, selector and template, which is all they read.
 */
export function templateOwnerView(job: Job): ReplicaSet {
  return { metadata: job.metadata, spec: { selector: job.spec.selector ?? {}, template: job.spec.template } };
}

/** The variable an Indexed Job's containers read their index from. */
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** Kubernetes' names.MaxGeneratedNameLength: a generated name's prefix leaves room for 5 random characters. */
const MAX_GENERATE_NAME_LENGTH = 58;

/** What the pod of one index carries over from the pod it replaces (backoffLimitPerIndex). */
export interface IndexFailureCounts {
  failures: number;
  ignored: number;
}

/**
 * `<job>-<index>-`, the generateName of an index's pods; a long Job name is cut so that the index
 * stays whole (Kubernetes' podGenerateNameWithIndex).
 */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = `${jobName}${suffix}`;
  return prefix.length > MAX_GENERATE_NAME_LENGTH ? `${jobName.slice(0, MAX_GENERATE_NAME_LENGTH - suffix.length)}${suffix}` : prefix;
}

/** The container reads its index through the downward API from the pod's index label, unless it sets the variable itself. */
function withIndexEnv(container: Container): Container {
  if (container.env?.some((e) => e.name === COMPLETION_INDEX_ENV)) return container;
  const env = [
    ...(container.env ?? []),
    { name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } },
  ];
  return { ...container, env };
}

/**
 * A new pod of `job` (Kubernetes' manageJob): the template as for any controller's pods, with the
 * job-tracking finalizer (so the pod cannot vanish before the Job has counted it) and, for an index,
 * the index annotation and label, the JOB_COMPLETION_INDEX variable, the hostname `<job>-<index>`
 * and the failure counts of the index.
 */
export function newJobPod(job: Job, index?: number, counts?: IndexFailureCounts): Pod {
  const pod = podFromTemplate(templateOwnerView(job), JOB_KIND);
  const meta = pod.metadata!;
  if (!meta.finalizers?.includes(JOB_TRACKING_FINALIZER)) meta.finalizers = [...(meta.finalizers ?? []), JOB_TRACKING_FINALIZER];
  if (index === undefined) return pod;
  const name = job.metadata?.name ?? '';
  meta.generateName = generateNameWithIndex(name, index);
  meta.annotations = { ...meta.annotations, [JOB_COMPLETION_INDEX_ANNOTATION]: String(index) };
  meta.labels = { ...meta.labels, [JOB_COMPLETION_INDEX_ANNOTATION]: String(index) };
  if (counts) {
    meta.annotations[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = String(counts.failures);
    if (counts.ignored > 0) meta.annotations[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = String(counts.ignored);
  }
  pod.spec = {
    ...pod.spec,
    hostname: `${name}-${index}`,
    containers: pod.spec.containers.map(withIndexEnv),
    ...(pod.spec.initContainers ? { initContainers: pod.spec.initContainers.map(withIndexEnv) } : {}),
  };
  return pod;
}
