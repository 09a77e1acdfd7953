import type { ApiObject } from '@svc/api';
import type { Client, ResourceClient, ServedResource } from '@svc/client';
import { isMethodNotSupported, isNotFound, errorMessage } from '@svc/machinery';
import type { ContentDeletionFindings } from './namespace-conditions';

/**
 * How long (s) objects that carry finalizers are expected to take, Kubernetes' figure: their
 * controllers get that long before the namespace looks again.
 */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** What one pass over a namespace's content did. */
export interface ContentDeletionOutcome {
  /** Seconds until the content left is expected to go; 0 when nothing is left. */
  estimateSeconds: number;
  findings: ContentDeletionFindings;
  /** Every failure of the pass (discovery included): while there is one, the namespace is not finalized. */
  errors: string[];
}

interface ResourceOutcome {
  estimateSeconds: number;
  remaining: number;
  finalizers: Map<string, number>;
}

/** `pods.` for the core group, `deployments.apps`, as Kubernetes names a resource in its messages. */
function resourceName(r: ServedResource): string {
  return `${r.resource}.${r.group}`;
}

/** Go's `%v` of a GroupVersionResource, for messages that match Kubernetes'. */
function gvrString(r: ServedResource): string {
  return `${r.group ? `${r.group}/` : ''}${r.version}, Resource=${r.resource}`;
}

/** A 404 or 405: the server does not serve that verb here (any more), which is not a failure. */
function isUnsupported(error: unknown): boolean {
  return isNotFound(error) || isMethodNotSupported(error);
}

/**
 * Kubernetes' NamespacedResourcesDeleter, the part that empties a namespace: every namespaced
 * resource type the server serves with `delete` (custom resources included) is emptied (one
 * deletecollection where served, else list and delete each), then listed again to see what is
 * left and which finalizers hold it.
 */
export class NamespacedContentDeleter {
  constructor(
    private readonly client: Client,
    private readonly now: () => number = Date.now,
  ) {}

  async deleteAllContent(namespace: string, signal?: AbortSignal): Promise<ContentDeletionOutcome> {
    const findings: { -readonly [K in keyof ContentDeletionFindings]: ContentDeletionFindings[K] } = {};
    const errors: string[] = [];
    let resources: ServedResource[] = [];
    try {
      const discovered = await this.client.discoverResources();
      resources = discovered.resources;
      if (discovered.failed.length > 0) {
        // Partial discovery is not fatal: the rest is emptied, but the namespace is not let go.
        findings.failedGroupVersions = discovered.failed;
        errors.push(`unable to retrieve the complete list of server APIs: ${discovered.failed.join(', ')}`);
      }
    } catch (error) {
      findings.discoveryError = errorMessage(error);
      errors.push(findings.discoveryError);
    }

    const deletable = resources.filter((r) => r.namespaced && r.verbs.includes('delete'));
    const contentErrors: string[] = [];
    const remainingByResource = new Map<string, number>();
    const remainingByFinalizer = new Map<string, number>();
    let estimateSeconds = 0;
    for (const resource of deletable) {
      signal?.throwIfAborted();
      try {
        const outcome = await this.deleteResource(resource, namespace, signal);
        estimateSeconds = Math.max(estimateSeconds, outcome.estimateSeconds);
        if (outcome.remaining > 0) {
          remainingByResource.set(resourceName(resource), outcome.remaining);
          for (const [finalizer, n] of outcome.finalizers) remainingByFinalizer.set(finalizer, (remainingByFinalizer.get(finalizer) ?? 0) + n);
        }
      } catch (error) {
        contentErrors.push(errorMessage(error));
      }
    }
    findings.contentErrors = contentErrors;
    findings.remainingByResource = remainingByResource;
    findings.remainingByFinalizer = remainingByFinalizer;
    errors.push(...contentErrors);
    return { estimateSeconds, findings, errors };
  }

  private async deleteResource(resource: ServedResource, namespace: string, signal?: AbortSignal): Promise<ResourceOutcome> {
    const client = this.client.dynamic(resource).inNamespace(namespace);
    const verbs = new Set(resource.verbs);
    let deleted = false;
    if (verbs.has('deletecollection')) {
      try {
        await client.deleteCollection({ namespace, propagationPolicy: 'Background', signal });
        deleted = true;
      } catch (error) {
        if (!isUnsupported(error)) throw error;
      }
    }
    if (!deleted && verbs.has('list')) await this.deleteEachItem(client, namespace, signal);

    const left = verbs.has('list') ? await this.listItems(client, namespace, signal) : undefined;
    if (!left || left.length === 0) return { estimateSeconds: 0, remaining: 0, finalizers: new Map() };

    const finalizers = new Map<string, number>();
    for (const item of left) for (const f of item.metadata?.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    const podEstimate = resource.group === '' && resource.resource === 'pods' ? this.podGraceEstimate(left) : 0;
    if (podEstimate > 0) return { estimateSeconds: podEstimate, remaining: left.length, finalizers };
    // Finalizers are a normal reason for content to stay a while; anything else should have gone.
    if (finalizers.size > 0) return { estimateSeconds: FINALIZER_ESTIMATE_SECONDS, remaining: left.length, finalizers };
    throw new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(resource)}`);
  }

  private async deleteEachItem(client: ResourceClient<ApiObject>, namespace: string, signal?: AbortSignal): Promise<void> {
    const items = await this.listItems(client, namespace, signal);
    for (const item of items ?? []) {
      const name = item.metadata?.name;
      if (!name) continue;
      await client.delete(name, { namespace, propagationPolicy: 'Background', signal }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
  }

  /** The objects of the namespace; undefined when the server does not list this resource (any more). */
  private async listItems(client: ResourceClient<ApiObject>, namespace: string, signal?: AbortSignal): Promise<ApiObject[] | undefined> {
    try {
      return (await client.listAll({ namespace, signal })).items;
    } catch (error) {
      if (isUnsupported(error)) return undefined;
      throw error;
    }
  }

  /**
   * Pods bound to a node stay for their grace period, until the node agent has stopped them: the
   * seconds until the last one's deletion time, or a whole grace period (the one it was given, else
   * its spec's, else 30 s) for one not yet marked or past its time (its node agent is late or gone).
   * Finished pods are left out, as Kubernetes does.
   */
  private podGraceEstimate(pods: readonly ApiObject[]): number {
    let estimate = 0;
    for (const pod of pods) {
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const deletionAt = pod.metadata?.deletionTimestamp ? Date.parse(pod.metadata.deletionTimestamp) : NaN;
      const left = Number.isFinite(deletionAt) ? Math.ceil((deletionAt - this.now()) / 1000) : 0;
      const grace =
        pod.metadata?.deletionGracePeriodSeconds || (pod.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds || 30;
      estimate = Math.max(estimate, left > 0 ? left : grace);
    }
    return estimate;
  }
}
