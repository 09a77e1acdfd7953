import { updatedConditions, type NamespaceCondition } from './namespace-conditions';

const T1 = '2024-01-01T00:00:00Z';
const T2 = '2024-01-01T00:00:05Z';

describe('namespace deletion conditions', () => {
  it('adds the five conditions in their ok variant when nothing went wrong', () => {
    const { conditions, changed } = updatedConditions(undefined, {}, T1);
    expect(changed).toBe(true);
    expect(conditions).toEqual([
      {
        type: 'NamespaceDeletionDiscoveryFailure',
        status: 'False',
        lastTransitionTime: T1,
        reason: 'ResourcesDiscovered',
        message: 'All resources successfully discovered',
      },
      {
        type: 'NamespaceDeletionGroupVersionParsingFailure',
        status: 'False',
        lastTransitionTime: T1,
        reason: 'ParsedGroupVersions',
        message: 'All legacy kube types successfully parsed',
      },
      {
        type: 'NamespaceDeletionContentFailure',
        status: 'False',
        lastTransitionTime: T1,
        reason: 'ContentDeleted',
        message: 'All content successfully deleted, may be waiting on finalization',
      },
      { type: 'NamespaceContentRemaining', status: 'False', lastTransitionTime: T1, reason: 'ContentRemoved', message: 'All content successfully removed' },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'False',
        lastTransitionTime: T1,
        reason: 'ContentHasNoFinalizers',
        message: 'All content-preserving finalizers finished',
      },
    ]);
  });

  it('reports failures and remaining content with sorted counts, as Kubernetes words them', () => {
    const { conditions } = updatedConditions(
      [],
      {
        failedGroupVersions: ['metrics.example.com/v1'],
        contentErrors: ['boom', 'bang'],
        remainingByResource: new Map([
          ['widgets.test.svc.io', 2],
          ['configmaps.', 1],
        ]),
        remainingByFinalizer: new Map([['example.com/hold', 3]]),
      },
      T1,
    );
    const byType = Object.fromEntries(conditions.map((c) => [c.type, c]));
    expect(byType.NamespaceDeletionDiscoveryFailure).toMatchObject({
      status: 'True',
      reason: 'DiscoveryFailed',
      message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.example.com/v1',
    });
    expect(byType.NamespaceDeletionContentFailure).toMatchObject({
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: 'Failed to delete all resource types, 2 remaining: [boom, bang]',
    });
    expect(byType.NamespaceContentRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances, widgets.test.svc.io has 2 resource instances',
    });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.com/hold in 3 resource instances',
    });
  });

  it('keeps transition times of unchanged conditions, and other conditions as they are', () => {
    const other: NamespaceCondition = { type: 'Custom', status: 'True', lastTransitionTime: T1 };
    const first = updatedConditions([other], { remainingByResource: new Map([['pods.', 1]]) }, T1).conditions;
    const again = updatedConditions(first, { remainingByResource: new Map([['pods.', 1]]) }, T2);
    expect(again.changed).toBe(false);
    expect(again.conditions).toEqual(first);
    const cleared = updatedConditions(first, {}, T2);
    expect(cleared.changed).toBe(true);
    expect(cleared.conditions[0]).toEqual(other);
    expect(cleared.conditions.find((c) => c.type === 'NamespaceContentRemaining')).toMatchObject({ status: 'False', lastTransitionTime: T2 });
    expect(cleared.conditions.find((c) => c.type === 'NamespaceFinalizersRemaining')).toMatchObject({ lastTransitionTime: T1 });
  });
});
