import type { ServedResource } from '@svc/client';
import { sameGroup, type GroupResource } from '@svc/machinery';

/**
 * What Kubernetes' garbage collector leaves out of its graph (`DefaultIgnoredResources`): events,
 * in the core group and in their own API group, which are never owners and come in volume.
 */
export const IGNORED_RESOURCES: readonly GroupResource[] = [
  { group: '', resource: 'events' },
  { group: 'events.svc.io', resource: 'events' },
];

const REQUIRED_VERBS = ['delete', 'list', 'watch'] as const;

/**
 * The served resources the garbage collector monitors: those that support list, watch and delete
 * (it must see every object and be able to delete it), except the ignored ones.
 */
export function deletableResources(resources: readonly ServedResource[], ignored: readonly GroupResource[] = IGNORED_RESOURCES): ServedResource[] {
  return resources.filter(
    (r) => REQUIRED_VERBS.every((verb) => r.verbs.includes(verb)) && !ignored.some((i) => sameGroup(i.group, r.group) && i.resource === r.resource),
  );
}

/** `group/version`, or `version` for the core group: how discovery names a group version it could not read. */
export function groupVersionOf(resource: Pick<ServedResource, 'group' | 'version'>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}
