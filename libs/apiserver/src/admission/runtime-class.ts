import { isRecord, jsonEqual, newForbidden } from '@svc/machinery';
import type { RuntimeClass, Toleration } from '@svc/api';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, podSpecOf } from './pod-admission';

/** What the RuntimeClass plugin reads of the RuntimeClasses. */
export interface RuntimeClassLookup {
  /** The class of that name as stored now; undefined when there is none. */
  get(name: string): Promise<RuntimeClass | undefined>;
}

/** No class at all, for a server that stores none (tests without storage). */
const NO_RUNTIME_CLASSES: RuntimeClassLookup = { get: () => Promise.resolve(undefined) };

const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? 'Equal') === (b.operator ?? 'Equal') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '');

/**
 * Kubernetes' MergeTolerations, for what a class adds: a toleration the pod has (or one that covers
 * it: the same key, operator and value with any effect and no time limit) is not added twice.
 */
function mergeTolerations(own: readonly Toleration[], added: readonly Toleration[]): Toleration[] {
  const merged = [...own];
  for (const t of added) {
    const covered = merged.some(
      (m) =>
        (sameToleration(m, t) && (m.tolerationSeconds ?? null) === (t.tolerationSeconds ?? null)) ||
        ((m.key ?? '') === (t.key ?? '') &&
          (m.operator ?? 'Equal') === (t.operator ?? 'Equal') &&
          (m.value ?? '') === (t.value ?? '') &&
          !m.effect &&
          m.tolerationSeconds === undefined),
    );
    if (!covered) merged.push(t);
  }
  return merged;
}

/**
 * Kubernetes' RuntimeClass admission plugin (on by default) for new Pods: a pod naming a RuntimeClass
 * that does not exist is refused; one naming a class gets the class's overhead (refused when it sets
 * a different one of its own) and its scheduling: the class's nodeSelector merged into the pod's (a
 * label the pod asks with another value is refused) and its tolerations added. Validation then refuses
 * an overhead no class set.
 */
export function runtimeClassAdmission(classes: RuntimeClassLookup = NO_RUNTIME_CLASSES): AdmissionPlugin {
  const refuse = (attributes: AdmissionAttributes, message: string) => newForbidden({ group: '', resource: 'pods' }, admittedName(attributes), message);
  const classOf = async (attributes: AdmissionAttributes): Promise<RuntimeClass | undefined> => {
    const className = podSpecOf(attributes.object).runtimeClassName;
    if (typeof className !== 'string' || className === '') return undefined;
    const found = await classes.get(className);
    if (found === undefined) throw refuse(attributes, `pod rejected: RuntimeClass ${JSON.stringify(className)} not found`);
    return found;
  };
  const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
  return {
    name: 'RuntimeClass',
    async admit(attributes) {
      if (!isPodCreate(attributes)) return;
      const rc = await classOf(attributes);
      if (rc === undefined) return;
      const spec = podSpecOf(attributes.object);
      const podFixed = rc.overhead?.podFixed;
      if (podFixed !== undefined) {
        const own = isRecord(spec.overhead) ? spec.overhead : undefined;
        if (own !== undefined && Object.keys(own).length > 0 && !jsonEqual(own, podFixed)) throw refuse(attributes, overheadMismatch);
        spec.overhead = { ...podFixed };
      }
      const scheduling = rc.scheduling;
      if (scheduling === undefined) return;
      const selector = isRecord(spec.nodeSelector) ? (spec.nodeSelector as Record<string, string>) : undefined;
      if (selector === undefined) {
        if (scheduling.nodeSelector !== undefined) spec.nodeSelector = { ...scheduling.nodeSelector };
      } else {
        for (const [key, value] of Object.entries(scheduling.nodeSelector ?? {})) {
          const podValue = selector[key];
          if (podValue !== undefined && podValue !== value) {
            throw refuse(attributes, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`);
          }
          selector[key] = value;
        }
      }
      const own = Array.isArray(spec.tolerations) ? (spec.tolerations as Toleration[]) : [];
      const merged = mergeTolerations(own, scheduling.tolerations ?? []);
      if (merged.length > 0) spec.tolerations = merged;
    },
    async validate(attributes) {
      if (!isPodCreate(attributes)) return;
      const rc = await classOf(attributes);
      const overhead = podSpecOf(attributes.object).overhead;
      if (rc?.overhead?.podFixed !== undefined) {
        if (!jsonEqual(overhead ?? {}, rc.overhead.podFixed)) throw refuse(attributes, overheadMismatch);
      } else if (overhead !== undefined) {
        throw refuse(attributes, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
      }
    },
  };
}
