import { sameGroup } from '@svc/machinery';
import { compareReleases, CURRENT_RELEASE } from './versions';

/** One group/version that stopped (or will stop) serving some kinds. */
export interface RemovedApiVersion {
  group: string;
  version: string;
  kinds: string[];
  resources: string[];
  /** `<group>/<version>` to use instead; absent when there is no replacement. */
  replacement?: string;
  /** Guidance when there is no replacement. */
  alternative?: string;
  removedIn: string;
  notes?: string;
}

type Row = [groups: string[], versions: string[], kinds: [string, string][], replacement: string | undefined, removedIn: string, notes?: string];

/**
 * The specification's table of removed API versions (up to 1.27), product group names applied, and
 * the removals of Kubernetes' deprecation guide after it, up to the release this server reports.
 */
const ROWS: Row[] = [
  [
    ['flowcontrol.apiserver.svc.io'],
    ['v1beta3'],
    [
      ['FlowSchema', 'flowschemas'],
      ['PriorityLevelConfiguration', 'prioritylevelconfigurations'],
    ],
    'flowcontrol.apiserver.svc.io/v1',
    '1.32',
  ],
  [
    ['flowcontrol.apiserver.svc.io'],
    ['v1beta2'],
    [
      ['FlowSchema', 'flowschemas'],
      ['PriorityLevelConfiguration', 'prioritylevelconfigurations'],
    ],
    'flowcontrol.apiserver.svc.io/v1',
    '1.29',
  ],
  [['storage.svc.io'], ['v1beta1'], [['CSIStorageCapacity', 'csistoragecapacities']], 'storage.svc.io/v1', '1.27'],
  [
    ['flowcontrol.apiserver.svc.io'],
    ['v1beta1'],
    [
      ['FlowSchema', 'flowschemas'],
      ['PriorityLevelConfiguration', 'prioritylevelconfigurations'],
    ],
    'flowcontrol.apiserver.svc.io/v1beta2',
    '1.26',
  ],
  [['autoscaling'], ['v2beta2'], [['HorizontalPodAutoscaler', 'horizontalpodautoscalers']], 'autoscaling/v2', '1.26'],
  [['autoscaling'], ['v2beta1'], [['HorizontalPodAutoscaler', 'horizontalpodautoscalers']], 'autoscaling/v2', '1.25'],
  [['batch'], ['v1beta1'], [['CronJob', 'cronjobs']], 'batch/v1', '1.25'],
  [
    ['discovery.svc.io'],
    ['v1beta1'],
    [['EndpointSlice', 'endpointslices']],
    'discovery.svc.io/v1',
    '1.25',
    'per-endpoint nodeName and zone replace topology keys; topology becomes read-only deprecatedTopology',
  ],
  [
    ['events.svc.io'],
    ['v1beta1'],
    [['Event', 'events']],
    'events.svc.io/v1',
    '1.25',
    'type limited to Normal and Warning; involvedObject renamed regarding; action, reason, reportingController, reportingInstance required; eventTime, series.lastObservedTime, series.count replace older time and count fields',
  ],
  [
    ['policy'],
    ['v1beta1'],
    [['PodDisruptionBudget', 'poddisruptionbudgets']],
    'policy/v1',
    '1.25',
    'empty spec.selector selects all pods in v1 (none in v1beta1); unset selects none',
  ],
  [['policy'], ['v1beta1'], [['PodSecurityPolicy', 'podsecuritypolicies']], undefined, '1.25', 'its admission controller is removed'],
  [['node.svc.io'], ['v1beta1'], [['RuntimeClass', 'runtimeclasses']], 'node.svc.io/v1', '1.25'],
  [
    ['admissionregistration.svc.io'],
    ['v1beta1'],
    [
      ['MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'],
      ['ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'],
    ],
    'admissionregistration.svc.io/v1',
    '1.22',
    'failurePolicy default Fail; matchPolicy default Equivalent; timeoutSeconds default 10; sideEffects and admissionReviewVersions required; name unique in list',
  ],
  [
    ['apiextensions.svc.io'],
    ['v1beta1'],
    [['CustomResourceDefinition', 'customresourcedefinitions']],
    'apiextensions.svc.io/v1',
    '1.22',
    'spec.scope required; version, validation, subresources, additionalPrinterColumns move under spec.versions[*]; openAPIV3Schema required and structural; preserveUnknownFields: true disallowed; JSONPath renamed jsonPath',
  ],
  [['apiregistration.svc.io'], ['v1beta1'], [['APIService', 'apiservices']], 'apiregistration.svc.io/v1', '1.22'],
  [['authentication.svc.io'], ['v1beta1'], [['TokenReview', 'tokenreviews']], 'authentication.svc.io/v1', '1.22'],
  [
    ['authorization.svc.io'],
    ['v1beta1'],
    [
      ['LocalSubjectAccessReview', 'localsubjectaccessreviews'],
      ['SelfSubjectAccessReview', 'selfsubjectaccessreviews'],
      ['SubjectAccessReview', 'subjectaccessreviews'],
      ['SelfSubjectRulesReview', 'selfsubjectrulesreviews'],
    ],
    'authorization.svc.io/v1',
    '1.22',
    'spec.group renamed spec.groups',
  ],
  [
    ['certificates.svc.io'],
    ['v1beta1'],
    [['CertificateSigningRequest', 'certificatesigningrequests']],
    'certificates.svc.io/v1',
    '1.22',
    'spec.signerName required; spec.usages required, unique, known; conditions unique by type; status.certificate PEM with only certificate blocks',
  ],
  [['coordination.svc.io'], ['v1beta1'], [['Lease', 'leases']], 'coordination.svc.io/v1', '1.22'],
  [
    ['extensions', 'networking.svc.io'],
    ['v1beta1'],
    [['Ingress', 'ingresses']],
    'networking.svc.io/v1',
    '1.22',
    'spec.backend becomes spec.defaultBackend; serviceName becomes service.name; servicePort becomes service.port.number or service.port.name; pathType required',
  ],
  [['networking.svc.io'], ['v1beta1'], [['IngressClass', 'ingressclasses']], 'networking.svc.io/v1', '1.22'],
  [
    ['rbac.authorization.svc.io'],
    ['v1beta1'],
    [
      ['Role', 'roles'],
      ['RoleBinding', 'rolebindings'],
      ['ClusterRole', 'clusterroles'],
      ['ClusterRoleBinding', 'clusterrolebindings'],
    ],
    'rbac.authorization.svc.io/v1',
    '1.22',
  ],
  [['scheduling.svc.io'], ['v1beta1'], [['PriorityClass', 'priorityclasses']], 'scheduling.svc.io/v1', '1.22'],
  [
    ['storage.svc.io'],
    ['v1beta1'],
    [
      ['CSIDriver', 'csidrivers'],
      ['CSINode', 'csinodes'],
      ['StorageClass', 'storageclasses'],
      ['VolumeAttachment', 'volumeattachments'],
    ],
    'storage.svc.io/v1',
    '1.22',
  ],
  [['extensions'], ['v1beta1'], [['NetworkPolicy', 'networkpolicies']], 'networking.svc.io/v1', '1.16'],
  [
    ['extensions'],
    ['v1beta1'],
    [['DaemonSet', 'daemonsets']],
    'apps/v1',
    '1.16',
    'templateGeneration removed; selector required and immutable; updateStrategy.type defaults RollingUpdate',
  ],
  [
    ['apps'],
    ['v1beta2'],
    [['DaemonSet', 'daemonsets']],
    'apps/v1',
    '1.16',
    'templateGeneration removed; selector required and immutable; updateStrategy.type defaults RollingUpdate',
  ],
  [
    ['extensions'],
    ['v1beta1'],
    [['Deployment', 'deployments']],
    'apps/v1',
    '1.16',
    'rollbackTo removed; selector required and immutable; progressDeadlineSeconds default 600; revisionHistoryLimit default 10; maxSurge and maxUnavailable default 25%',
  ],
  [
    ['apps'],
    ['v1beta1', 'v1beta2'],
    [['Deployment', 'deployments']],
    'apps/v1',
    '1.16',
    'rollbackTo removed; selector required and immutable; progressDeadlineSeconds default 600; revisionHistoryLimit default 10; maxSurge and maxUnavailable default 25%',
  ],
  [
    ['apps'],
    ['v1beta1', 'v1beta2'],
    [['StatefulSet', 'statefulsets']],
    'apps/v1',
    '1.16',
    'selector required and immutable; updateStrategy.type defaults RollingUpdate',
  ],
  [['extensions'], ['v1beta1'], [['ReplicaSet', 'replicasets']], 'apps/v1', '1.16', 'selector required and immutable'],
  [['apps'], ['v1beta1', 'v1beta2'], [['ReplicaSet', 'replicasets']], 'apps/v1', '1.16', 'selector required and immutable'],
  [['extensions'], ['v1beta1'], [['PodSecurityPolicy', 'podsecuritypolicies']], 'policy/v1beta1', '1.16', 'replacement itself removed in 1.25'],
];

export const REMOVED_API_VERSIONS: readonly RemovedApiVersion[] = ROWS.flatMap(([groups, versions, kinds, replacement, removedIn, notes]) =>
  groups.flatMap((group) =>
    versions.map((version) => ({
      group,
      version,
      kinds: kinds.map(([k]) => k),
      resources: kinds.map(([, r]) => r),
      replacement,
      alternative: replacement ? undefined : 'use built-in pod security admission or an admission webhook',
      removedIn,
      notes,
    })),
  ),
);

function matches(entry: RemovedApiVersion, group: string, version: string, resource?: string): boolean {
  return sameGroup(entry.group, group) && entry.version === version && (resource === undefined || entry.resources.includes(resource));
}

/** The entry of a group/version (and resource) removed at or before `release`. */
export function findRemovedApiVersion(group: string, version: string, resource?: string, release = CURRENT_RELEASE): RemovedApiVersion | undefined {
  return REMOVED_API_VERSIONS.find((e) => matches(e, group, version, resource) && compareReleases(e.removedIn, release) <= 0);
}

/** The entry of a group/version (and resource) still served at `release` but scheduled for removal. */
export function findDeprecatedApiVersion(group: string, version: string, resource?: string, release = CURRENT_RELEASE): RemovedApiVersion | undefined {
  return REMOVED_API_VERSIONS.find((e) => matches(e, group, version, resource) && compareReleases(e.removedIn, release) > 0);
}

/** The text for a 404 on a removed version: what went away, when, and what to use. */
export function removedApiMessage(entry: RemovedApiVersion, resource?: string): string {
  const gv = entry.group ? `${entry.group}/${entry.version}` : entry.version;
  const index = resource ? entry.resources.indexOf(resource) : -1;
  const what = index >= 0 ? entry.kinds[index] : entry.kinds.join(', ');
  const instead = entry.replacement ? `use ${entry.replacement}` : (entry.alternative ?? 'there is no replacement');
  return `${what} ${gv} was removed in ${entry.removedIn}; ${instead}${entry.notes ? ` (changes: ${entry.notes})` : ''}`;
}

/** Kubernetes' deprecation warning: `autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated ..., unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler`. */
export function deprecatedApiWarning(entry: RemovedApiVersion, kind: string): string {
  const gv = entry.group ? `${entry.group}/${entry.version}` : entry.version;
  const instead = entry.replacement ? `; use ${entry.replacement} ${kind}` : '';
  return `${gv} ${kind} is deprecated, unavailable in v${entry.removedIn}+${instead}`;
}
