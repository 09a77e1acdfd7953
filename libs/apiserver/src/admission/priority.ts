import { DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, priorityClassDefinition, SYSTEM_PRIORITY_CLASSES, type ApiObject, type PriorityClass } from '@svc/api';
import { newForbidden } from '@svc/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, isPodUpdate, podSpecOf } from './pod-admission';

/** What the Priority plugin reads of the PriorityClasses. */
export interface PriorityClassLookup {
  /** The class of that name as stored now; undefined when there is none. */
  get(name: string): Promise<PriorityClass | undefined>;
  /** Every class (to find the global default), possibly a moment old unless `fresh`. */
  list(fresh?: boolean): Promise<readonly PriorityClass[]>;
}

/** The system's classes, for a server that stores none (tests without storage). */
export function systemPriorityClasses(): PriorityClassLookup {
  return {
    get: (name) => Promise.resolve(SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata?.name === name)),
    list: () => Promise.resolve(SYSTEM_PRIORITY_CLASSES),
  };
}

/** The global default class: of several (a race between two writers), the one of lowest value, as Kubernetes picks. */
async function globalDefault(classes: PriorityClassLookup, fresh = false): Promise<PriorityClass | undefined> {
  let found: PriorityClass | undefined;
  for (const pc of await classes.list(fresh)) {
    if (pc.globalDefault === true && (found === undefined || found.value > pc.value)) found = pc;
  }
  return found;
}

function isPriorityClassWrite(attributes: AdmissionAttributes): boolean {
  const def = attributes.definition;
  const stored = def.aliasOf ?? def;
  return (
    (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE') &&
    attributes.subresource === '' &&
    stored.group === priorityClassDefinition.group &&
    stored.resource === priorityClassDefinition.resource
  );
}

/**
 * Kubernetes' Priority admission plugin (plugin/pkg/admission/priority). A new Pod gets the value and
 * the preemption policy of the PriorityClass it names, or of the global default class when it names
 * none (then its priorityClassName too); with no default class, priority 0 and PreemptLowerPriority.
 * A class that does not exist, or a priority or preemption policy of the Pod's own that differs from
 * the class's, is refused as Kubernetes refuses it. An update keeps what the create set. A PriorityClass
 * may be the global default only while no other class is.
 */
export function priorityAdmission(classes: PriorityClassLookup = systemPriorityClasses()): AdmissionPlugin {
  return {
    name: 'Priority',
    async admit(attributes) {
      if (isPodUpdate(attributes)) {
        // Set on create: an update that leaves them out keeps them (any other change is the pod's update rules' to refuse).
        const spec = podSpecOf(attributes.object);
        const old = (attributes.oldObject?.spec ?? {}) as { priority?: unknown; preemptionPolicy?: unknown };
        if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (!isPodCreate(attributes)) return;
      const spec = podSpecOf(attributes.object);
      const refuse = (message: string) => newForbidden({ group: '', resource: 'pods' }, admittedName(attributes), message);
      const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      let priority: number;
      let preemptionPolicy: string | undefined;
      if (className === '') {
        const fallback = await globalDefault(classes);
        if (fallback !== undefined) spec.priorityClassName = fallback.metadata?.name ?? '';
        priority = fallback?.value ?? DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS;
        preemptionPolicy = fallback === undefined ? 'PreemptLowerPriority' : fallback.preemptionPolicy;
      } else {
        const pc = await classes.get(className);
        if (pc === undefined) throw refuse(`no PriorityClass with name ${className} was found`);
        priority = pc.value;
        preemptionPolicy = pc.preemptionPolicy;
      }
      if (spec.priority !== undefined && spec.priority !== priority) {
        throw refuse(
          `the integer value of priority (${JSON.stringify(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
        );
      }
      spec.priority = priority;
      if (preemptionPolicy !== undefined) {
        if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== preemptionPolicy) {
          throw refuse(
            `the string value of PreemptionPolicy (${typeof spec.preemptionPolicy === 'string' ? spec.preemptionPolicy : JSON.stringify(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
          );
        }
        spec.preemptionPolicy = preemptionPolicy;
      }
    },
    async validate(attributes) {
      if (!isPriorityClassWrite(attributes)) return;
      const pc = attributes.object as PriorityClass & ApiObject;
      if (pc.globalDefault !== true) return;
      const existing = await globalDefault(classes, true);
      if (existing === undefined) return;
      const name = existing.metadata?.name ?? '';
      if (attributes.operation === 'CREATE' || name !== admittedName(attributes)) {
        throw newForbidden(
          { group: attributes.definition.group, resource: attributes.definition.resource },
          admittedName(attributes),
          `PriorityClass ${name} is already marked as default. Only one default can exist`,
        );
      }
    },
  };
}
