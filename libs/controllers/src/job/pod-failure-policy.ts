import type { ContainerStatus, JobSpec, Pod, PodCondition } from '@svc/api';

type PodFailurePolicy = NonNullable<JobSpec['podFailurePolicy']>;
type ExitCodesRequirement = NonNullable<PodFailurePolicy['rules'][number]['onExitCodes']>;
type ConditionPatterns = NonNullable<PodFailurePolicy['rules'][number]['onPodConditions']>;

export type PodFailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/** What a Job's pod failure policy makes of one failed pod (Kubernetes' matchPodFailurePolicy). */
export interface PodFailureMatch {
  /** Set when a FailJob rule matched: the message of the Job's FailureTarget and Failed conditions. */
  failJobMessage?: string;
  /** Whether the failure counts towards backoffLimit (false only for Ignore). */
  countFailed: boolean;
  /** The action of the rule that matched, if one did. */
  action?: PodFailureAction;
}

function exitCodeMatches(exitCode: number, requirement: ExitCodesRequirement): boolean {
  const values = requirement.values ?? [];
  if (requirement.operator === 'In') return values.includes(exitCode);
  if (requirement.operator === 'NotIn') return !values.includes(exitCode);
  return false;
}

/** The first container that ended with a non-zero exit code the requirement names. */
function matchingContainer(statuses: readonly ContainerStatus[] | undefined, requirement: ExitCodesRequirement): ContainerStatus | undefined {
  for (const status of statuses ?? []) {
    const terminated = status.state?.terminated;
    // Still running or being stopped: no exit code to match yet.
    if (!terminated) continue;
    if (requirement.containerName !== undefined && requirement.containerName !== status.name) continue;
    if (terminated.exitCode !== 0 && exitCodeMatches(terminated.exitCode, requirement)) return status;
  }
  return undefined;
}

function matchingCondition(conditions: readonly PodCondition[] | undefined, patterns: ConditionPatterns): PodCondition | undefined {
  for (const condition of conditions ?? []) {
    if (patterns.some((p) => p.type === condition.type && (p.status ?? 'True') === condition.status)) return condition;
  }
  return undefined;
}

/**
 * Tries the rules in order against a failed pod; the first that matches decides. Without a policy,
 * or when no rule matches, the failure counts. Messages are Kubernetes' own, which users match.
 */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PodFailureMatch {
  if (!policy) return { countFailed: true };
  const podName = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    const action = rule.action as PodFailureAction;
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const container =
        matchingContainer(pod.status?.containerStatuses, rule.onExitCodes) ?? matchingContainer(pod.status?.initContainerStatuses, rule.onExitCodes);
      if (!container) continue;
      failJobMessage = `Container ${container.name} for pod ${podName} failed with exit code ${container.state?.terminated?.exitCode} matching FailJob rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const condition = matchingCondition(pod.status?.conditions, rule.onPodConditions);
      if (!condition) continue;
      failJobMessage = `Pod ${podName} has condition ${condition.type} matching FailJob rule at index ${index}`;
    } else {
      continue;
    }
    switch (action) {
      case 'Ignore':
        return { countFailed: false, action };
      case 'FailIndex':
      case 'Count':
        return { countFailed: true, action };
      case 'FailJob':
        return { failJobMessage, countFailed: true, action };
      default:
        // An action this version does not know matches nothing (as Kubernetes treats it).
        continue;
    }
  }
  return { countFailed: true };
}
