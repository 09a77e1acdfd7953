import { BUILTIN_RESOURCES, type Client, type ResourceInfo } from '@svc/client';
import { sameGroup } from '@svc/machinery';

/** How long a discovery answer is reused before a resource it lacks is looked up again. */
const DISCOVERY_TTL_MS = 30_000;

/**
 * Where the quota controller lists a resource a quota counts: the built-in kinds from the client's
 * scheme, any other (custom resources, kinds served later) from discovery, read again at most every
 * 30 s when a resource is missing from it.
 */
export class ServedResources {
  private discovered: { at: number; resources: ResourceInfo[] } | undefined;

  constructor(private readonly client: Client) {}

  async find(group: string, resource: string): Promise<ResourceInfo | undefined> {
    if (group === '' && resource === 'pods') return BUILTIN_RESOURCES.pods.info;
    const builtin = this.client.scheme.all().find((d) => d.resource === resource && d.served && sameGroup(d.group, group) && d.aliasOf === undefined);
    if (builtin !== undefined && builtin.storage)
      return { group: builtin.group, version: builtin.version, resource, namespaced: builtin.namespaced, kind: builtin.kind };
    const fromDiscovery = (list: ResourceInfo[]) => list.find((r) => r.resource === resource && (r.group === group || sameGroup(r.group, group)));
    const now = Date.now();
    let found = this.discovered ? fromDiscovery(this.discovered.resources) : undefined;
    if (found === undefined && (this.discovered === undefined || now - this.discovered.at > DISCOVERY_TTL_MS)) {
      const { resources } = await this.client.discoverResources();
      this.discovered = { at: now, resources };
      found = fromDiscovery(resources);
    }
    return found;
  }
}
