import { builtinScheme, type PolicyRule, type Scheme } from '@svc/api';
import { kubernetesGroupOf, type ResourceInfo } from '@svc/client';
import { getReconcilerOptions } from '../decorators/reconciler.decorator';
import { getRunnableOptions } from '../decorators/runnable.decorator';
import type { CachedResource } from '../reconcile/cache-declarations';
import { resolveResource, type ResourceRef } from '../reconcile/resource-ref';
import type { CustomResourceSource } from '../resources/install-resources';

/** What the permissions of an operator follow from: the same things its manager is given. */
export interface OperatorPermissionsInput {
  /** Reconciler classes (or instances) carrying `@Reconciler`. */
  reconcilers?: readonly object[];
  /** Runnable classes (or instances) carrying `@Runnable`. */
  runnables?: readonly object[];
  /** Resource types whose CRDs the manager applies at start. */
  resources?: readonly CustomResourceSource[];
  /** The namespace of the leader election Lease; none without leader election. */
  leaderElectionNamespace?: string;
  /** Admission webhooks served with replicas: the leader installs the configurations, the replicas share the certificate Secret. */
  webhooks?: { secretNamespace: string; secretName: string };
  /** `/metrics` protected by TokenReview and SubjectAccessReview (`http.auth`). */
  protectedMetrics?: boolean;
  /** Where `{ apiVersion, kind }` references are looked up; the built-in scheme by default. */
  scheme?: Scheme;
}

/** The rules of the operator's ClusterRole, and those of a Role in each namespace that needs one. */
export interface OperatorPermissions {
  clusterRules: PolicyRule[];
  namespaceRules: Array<{ namespace: string; rules: PolicyRule[] }>;
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete'];

/**
 * The RBAC an operator needs, derived from what it declares, as controller-gen derives it from
 * kubebuilder markers but with nothing to keep by hand: the reconciled kind (read, update and patch,
 * its status and its finalizers subresource, which a controller reference's blockOwnerDeletion needs),
 * owned and written kinds (read and write), watched and read kinds (read), the Events every
 * reconcile record and EventRecorder writes (core and events.k8s.io), the CRDs it applies, the Lease
 * of leader election, the webhook configurations and the certificate Secret, and TokenReviews and
 * SubjectAccessReviews for protected metrics. Groups carry Kubernetes' names, so the YAML is for any
 * cluster.
 */
export function operatorPermissions(input: OperatorPermissionsInput): OperatorPermissions {
  const scheme = input.scheme ?? builtinScheme();
  const cluster = new RuleSet();
  const info = (ref: ResourceRef<unknown>) => resolveResource(ref, scheme);
  const reads = (declared: readonly CachedResource[] | undefined) =>
    (declared ?? []).map((read) => (typeof read === 'object' && read !== null && 'resource' in read && 'namespace' in read ? read.resource : read));
  for (const reconciler of input.reconcilers ?? []) {
    const options = getReconcilerOptions(reconciler);
    if (!options) throw new Error(`${nameOf(reconciler)} has no @Reconciler options`);
    const primary = info(options.for);
    cluster.add(primary, [...READ, 'update', 'patch']);
    cluster.add(primary, ['get', 'update', 'patch'], 'status');
    cluster.add(primary, ['update'], 'finalizers');
    for (const owned of options.owns ?? []) cluster.add(info(owned), [...READ, ...WRITE]);
    for (const watched of options.watches ?? []) cluster.add(info((watched as { resource: ResourceRef<unknown> }).resource), READ);
    for (const read of reads(options.reads)) cluster.add(info(read), READ);
    for (const written of options.writes ?? []) cluster.add(info(written), [...READ, ...WRITE]);
  }
  for (const runnable of input.runnables ?? []) {
    const options = getRunnableOptions(runnable);
    if (!options) continue;
    for (const read of reads(options.reads)) cluster.add(info(read), READ);
    for (const written of options.writes ?? []) cluster.add(info(written), [...READ, ...WRITE]);
  }
  if ((input.reconcilers ?? []).length > 0) {
    cluster.addRule('', 'events', ['create', 'patch']);
    cluster.addRule('events.k8s.io', 'events', ['create', 'patch']);
  }
  if (input.resources?.length) cluster.addRule('apiextensions.k8s.io', 'customresourcedefinitions', ['get', 'list', 'watch', 'create', 'update', 'patch']);
  if (input.webhooks) {
    for (const resource of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
      cluster.addRule('admissionregistration.k8s.io', resource, ['get', 'create', 'update', 'patch']);
    }
  }
  if (input.protectedMetrics) {
    cluster.addRule('authentication.k8s.io', 'tokenreviews', ['create']);
    cluster.addRule('authorization.k8s.io', 'subjectaccessreviews', ['create']);
  }
  const namespaced = new Map<string, RuleSet>();
  const inNamespace = (namespace: string) => namespaced.get(namespace) ?? namespaced.set(namespace, new RuleSet()).get(namespace)!;
  if (input.leaderElectionNamespace) inNamespace(input.leaderElectionNamespace).addRule('coordination.k8s.io', 'leases', ['get', 'create', 'update']);
  if (input.webhooks) inNamespace(input.webhooks.secretNamespace).addRule('', 'secrets', ['get', 'create', 'update']);
  return {
    clusterRules: cluster.rules(),
    namespaceRules: [...namespaced].sort(([a], [b]) => a.localeCompare(b)).map(([namespace, rules]) => ({ namespace, rules: rules.rules() })),
  };
}

function nameOf(target: object): string {
  return typeof target === 'function' ? target.name : target.constructor.name;
}

/** Verbs per (group, resource), merged; rules of equal verbs in one group share one rule, as controller-gen folds them. */
class RuleSet {
  private readonly verbs = new Map<string, Set<string>>();

  add(info: ResourceInfo, verbs: readonly string[], subresource?: string): void {
    // A built-in group under the specification's name is granted under Kubernetes' (what any cluster checks).
    this.addRule(kubernetesGroupOf(info.group), subresource ? `${info.resource}/${subresource}` : info.resource, verbs);
  }

  addRule(group: string, resource: string, verbs: readonly string[]): void {
    const key = JSON.stringify([group, resource]);
    const set = this.verbs.get(key) ?? this.verbs.set(key, new Set()).get(key)!;
    for (const verb of verbs) set.add(verb);
  }

  rules(): PolicyRule[] {
    const byGroupAndVerbs = new Map<string, PolicyRule>();
    const entries = [...this.verbs].map(([key, verbs]) => {
      const [group, resource] = JSON.parse(key) as [string, string];
      return { group, resource, verbs: [...verbs].sort(verbOrder) };
    });
    entries.sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource));
    for (const { group, resource, verbs } of entries) {
      const key = JSON.stringify([group, verbs]);
      const rule = byGroupAndVerbs.get(key);
      if (rule) rule.resources!.push(resource);
      else byGroupAndVerbs.set(key, { apiGroups: [group], resources: [resource], verbs });
    }
    return [...byGroupAndVerbs.values()];
  }
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
function verbOrder(a: string, b: string): number {
  return VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b);
}
