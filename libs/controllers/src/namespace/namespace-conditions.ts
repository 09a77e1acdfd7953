import type { Namespace } from '@svc/api';

export type NamespaceCondition = NonNullable<NonNullable<Namespace['status']>['conditions']>[number];

/** The condition types a terminating namespace reports, in the order Kubernetes adds them. */
export const NAMESPACE_DELETION_CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;
export type NamespaceDeletionConditionType = (typeof NAMESPACE_DELETION_CONDITION_TYPES)[number];

// What each condition says while nothing is wrong (status False), word for word as Kubernetes says it,
// since tools match on these reasons.
const OK: Record<NamespaceDeletionConditionType, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** What one pass over a terminating namespace's content found; an empty field means that part went well. */
export interface ContentDeletionFindings {
  /** Discovery failed as a whole (its message), or for the group versions listed. */
  discoveryError?: string;
  failedGroupVersions?: readonly string[];
  groupVersionError?: string;
  /** Failures deleting or listing content, one message per resource type. */
  contentErrors?: readonly string[];
  /** Objects left, by `<resource>.<group>`. */
  remainingByResource?: ReadonlyMap<string, number>;
  /** Objects left, by finalizer they carry. */
  remainingByFinalizer?: ReadonlyMap<string, number>;
}

type Failure = { type: NamespaceDeletionConditionType; reason: string; message: string };

/** Go's error aggregate: one message as is, several as `[a, b]`. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

function counts(map: ReadonlyMap<string, number> | undefined, phrase: (key: string, n: number) => string): string[] {
  return [...(map ?? new Map<string, number>())]
    .filter(([, n]) => n > 0)
    .map(([key, n]) => phrase(key, n))
    .sort();
}

/** The failing conditions the findings call for (status True), with Kubernetes' reasons and messages. */
export function failureConditions(findings: ContentDeletionFindings): Failure[] {
  const failures: Failure[] = [];
  if (findings.discoveryError !== undefined) {
    failures.push({ type: 'NamespaceDeletionDiscoveryFailure', reason: 'DiscoveryFailed', message: findings.discoveryError });
  } else if (findings.failedGroupVersions && findings.failedGroupVersions.length > 0) {
    const groups = findings.failedGroupVersions;
    failures.push({
      type: 'NamespaceDeletionDiscoveryFailure',
      reason: 'DiscoveryFailed',
      message: `Discovery failed for some groups, ${groups.length} failing: unable to retrieve the complete list of server APIs: ${groups.join(', ')}`,
    });
  }
  if (findings.groupVersionError !== undefined) {
    failures.push({ type: 'NamespaceDeletionGroupVersionParsingFailure', reason: 'GroupVersionParsingFailed', message: findings.groupVersionError });
  }
  const contentErrors = findings.contentErrors ?? [];
  if (contentErrors.length > 0) {
    failures.push({
      type: 'NamespaceDeletionContentFailure',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${contentErrors.length} remaining: ${aggregate(contentErrors)}`,
    });
  }
  const resources = counts(findings.remainingByResource, (resource, n) => `${resource} has ${n} resource instances`);
  if (resources.length > 0) {
    failures.push({ type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
  }
  const finalizers = counts(findings.remainingByFinalizer, (finalizer, n) => `${finalizer} in ${n} resource instances`);
  if (finalizers.length > 0) {
    failures.push({
      type: 'NamespaceFinalizersRemaining',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
    });
  }
  return failures;
}

/**
 * The namespace's conditions after a pass: each of the five deletion conditions is the failure
 * found or its "ok" variant. A condition whose status, reason and message are unchanged keeps its
 * transition time; a new one is appended, as Kubernetes' condition updater does. Other conditions
 * stay as they are.
 */
export function updatedConditions(
  current: readonly NamespaceCondition[] | undefined,
  findings: ContentDeletionFindings,
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const failures = failureConditions(findings);
  const conditions = (current ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const type of NAMESPACE_DELETION_CONDITION_TYPES) {
    const failure = failures.find((f) => f.type === type);
    const desired: NamespaceCondition = failure
      ? { type, status: 'True', lastTransitionTime: now, reason: failure.reason, message: failure.message }
      : { type, status: 'False', lastTransitionTime: now, ...OK[type] };
    const index = conditions.findIndex((c) => c.type === type);
    if (index < 0) {
      conditions.push(desired);
      changed = true;
      continue;
    }
    const old = conditions[index];
    if (old.status === desired.status && old.reason === desired.reason && old.message === desired.message) continue;
    conditions[index] = desired;
    changed = true;
  }
  return { conditions, changed };
}
