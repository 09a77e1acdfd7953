import type { Scale } from '@svc/api';
import type { Client } from '@svc/client';
import { isNotFound } from '@svc/machinery';

interface DiscoveredResource {
  name: string;
  namespaced: boolean;
  kind: string;
}

/** A kind's resource in one group version, as discovery lists it (Kubernetes' RESTMapping). */
export interface ScaleMapping {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  kind: string;
}

/** How long discovery documents are trusted before they are read again. */
const DISCOVERY_TTL_MS = 30_000;

/**
 * The scale subresource of any kind that has one, custom resources included, found as Kubernetes'
 * controller finds it: the kind's resource from discovery (its group's versions, preferred first, as
 * RESTMappings gives them), then GET and PUT of `<resource>/<name>/scale`. A kind without a scale
 * subresource fails at the GET, with the API server's answer, as in Kubernetes.
 */
export class ScaleTargets {
  private readonly cache = new Map<string, { at: number; value: unknown }>();

  constructor(private readonly client: Client) {}

  /** RESTMappings of the group kind; throws Kubernetes' NoKindMatchError message when there is none. */
  async mappings(apiVersion: string, kind: string): Promise<ScaleMapping[]> {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const versions = await this.versionsOf(group);
    const found: ScaleMapping[] = [];
    for (const version of versions) {
      const resources = await this.resourcesOf(group, version);
      const match = resources.find((r) => r.kind === kind && !r.name.includes('/'));
      if (match) found.push({ group, version, resource: match.name, namespaced: match.namespaced, kind });
    }
    if (found.length === 0) {
      // A kind served later (a CRD just made) is looked up afresh next time.
      for (const key of [...this.cache.keys()]) if (key === `group:${group}` || key.startsWith(`resources:${group}/`)) this.cache.delete(key);
      throw new Error(`no matches for kind ${JSON.stringify(kind)} in group ${JSON.stringify(group)}`);
    }
    return found;
  }

  /** scaleForResourceMappings: the first mapping whose scale can be read; the first error when none. */
  async get(mappings: readonly ScaleMapping[], namespace: string, name: string): Promise<{ scale: Scale; mapping: ScaleMapping }> {
    let first: Error | undefined;
    for (const mapping of mappings) {
      try {
        return { scale: await this.resource(mapping).getScale(name, { namespace }), mapping };
      } catch (error) {
        first ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    throw first ?? new Error('unrecognized resource');
  }

  update(mapping: ScaleMapping, namespace: string, name: string, scale: Scale): Promise<Scale> {
    return this.resource(mapping).updateScale(name, scale, { namespace });
  }

  private resource(mapping: ScaleMapping) {
    // No subresources named: whether the kind scales is the API server's to answer.
    return this.client.dynamic({
      group: mapping.group,
      version: mapping.version,
      resource: mapping.resource,
      namespaced: mapping.namespaced,
      kind: mapping.kind,
    });
  }

  private async versionsOf(group: string): Promise<string[]> {
    return this.cached(`group:${group}`, async () => {
      if (group === '') return ['v1'];
      try {
        const doc = await this.client.rest.request<{ versions?: Array<{ version: string }>; preferredVersion?: { version: string } }>({
          method: 'GET',
          path: `/apis/${group}`,
        });
        const preferred = doc.preferredVersion?.version;
        const all = (doc.versions ?? []).map((v) => v.version);
        return preferred ? [preferred, ...all.filter((v) => v !== preferred)] : all;
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
    });
  }

  private async resourcesOf(group: string, version: string): Promise<DiscoveredResource[]> {
    return this.cached(`resources:${group}/${version}`, async () => {
      try {
        const doc = await this.client.rest.request<{ resources?: DiscoveredResource[] }>({
          method: 'GET',
          path: group === '' ? `/api/${version}` : `/apis/${group}/${version}`,
        });
        return doc.resources ?? [];
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
    });
  }

  private async cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.value as T;
    const value = await load();
    this.cache.set(key, { at: Date.now(), value });
    return value;
  }
}
