import type { OwnerReference } from '@svc/api';
import type { Client } from '@svc/client';
import { groupOfApiVersion, isNotFound } from '@svc/machinery';
import type { ControllerScale } from './budget-status';

interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
}

/** How long a group version's discovery document is trusted; a kind missing from one older than {@link RECHECK_MS} is looked up again. */
const DOCUMENT_TTL_MS = 30_000;
const RECHECK_MS = 5_000;
const GROUP_VERSION = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[a-z0-9]{1,63}$/;

/**
 * The desired scale of a controller of any kind that has a scale subresource, custom resources
 * included (Kubernetes' getScaleController over its RESTMapper): the kind's resource is read from
 * its group version's discovery document, and the replicas from its `scale`.
 */
export class ScaleResolver {
  private readonly documents = new Map<string, { at: number; resources: ApiResource[] | undefined }>();

  constructor(private readonly client: Client) {}

  /** Undefined when the kind is not served or the object named is not there (or not the same uid); an error when the kind cannot scale. */
  async find(ref: OwnerReference, namespace: string): Promise<ControllerScale | undefined> {
    // The reference is written by whoever made the pod: only a well-formed group version is looked up.
    if (!GROUP_VERSION.test(ref.apiVersion)) return undefined;
    const resources = await this.resourcesOf(ref.apiVersion, ref.kind);
    const served = resources?.find((r) => r.kind === ref.kind && !r.name.includes('/'));
    if (!served) return undefined;
    const group = groupOfApiVersion(ref.apiVersion);
    const version = ref.apiVersion.slice(ref.apiVersion.indexOf('/') + 1);
    const target = this.client.dynamic({ group, version, resource: served.name, namespaced: served.namespaced, kind: served.kind });
    try {
      const scale = await target.getScale(ref.name, served.namespaced ? { namespace } : {});
      if (scale.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, replicas: scale.spec?.replicas ?? 0 };
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // Not found: the object is gone, or its kind has no scale to read.
      if (!resources?.some((r) => r.name === `${served.name}/scale`)) {
        throw new Error(`${served.name}${group ? `.${group}` : ''} does not implement the scale subresource`);
      }
      return undefined;
    }
  }

  private async resourcesOf(apiVersion: string, kind: string): Promise<ApiResource[] | undefined> {
    const now = Date.now();
    const cached = this.documents.get(apiVersion);
    const fresh = cached !== undefined && now - cached.at < DOCUMENT_TTL_MS;
    const knowsKind = cached?.resources?.some((r) => r.kind === kind) ?? false;
    if (cached && fresh && (knowsKind || now - cached.at < RECHECK_MS)) return cached.resources;
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let resources: ApiResource[] | undefined;
    try {
      resources = (await this.client.rest.request<{ resources?: ApiResource[] }>({ method: 'GET', path })).resources ?? [];
    } catch (error) {
      if (!isNotFound(error)) throw error;
      resources = undefined;
    }
    this.documents.set(apiVersion, { at: now, resources });
    return resources;
  }
}
