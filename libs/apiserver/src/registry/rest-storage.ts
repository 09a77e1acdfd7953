import { podBindingRest } from './core/pod/binding';
import { podEvictionRest } from './core/pod/eviction';
import type { SubresourceRest, SubresourceRestTable } from './rest';

/** The REST of the built-in kinds' own subresources, by `group/resource/subresource` (Kubernetes' storage map of a group). */
const SUBRESOURCE_REST: ReadonlyMap<string, SubresourceRest> = new Map([
  ['/pods/binding', podBindingRest],
  ['/pods/eviction', podEvictionRest],
]);

/** Which REST serves a kind's own subresource, if any. */
export const builtinSubresourceRest: SubresourceRestTable = (group, resource, subresource) => SUBRESOURCE_REST.get(`${group}/${resource}/${subresource}`);
