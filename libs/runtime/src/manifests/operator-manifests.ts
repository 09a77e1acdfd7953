import { stringify } from 'yaml';
import { operatorPermissions, type OperatorPermissionsInput } from './rbac-rules';

/** What the deployment manifests of an operator are made from. */
export interface OperatorManifestsInput extends Omit<OperatorPermissionsInput, 'leaderElectionNamespace' | 'webhooks'> {
  /** The operator's name: its ServiceAccount, roles, Deployment and Lease. */
  name: string;
  /** The namespace it runs in (written as a Namespace too). */
  namespace: string;
  /** The image the Deployment runs. */
  image: string;
  /** Replicas of the Deployment; 2 by default (one leads, one stands by), with a PodDisruptionBudget of one unavailable. */
  replicas?: number;
  /** Container port of `/healthz`, `/readyz` and `/metrics`; 8081 by default (`--health-probe-bind-address=:8081`). */
  probePort?: number;
  /** Leader election with the Lease `<name>` in `namespace`; on by default. */
  leaderElection?: boolean;
  /** Admission webhooks behind the Service `<name>-webhooks` (port 443 to `port`, 9443 by default); none when absent. */
  webhooks?: { port?: number };
  /** Arguments of the container (the operator's own flags). */
  args?: readonly string[];
}

type Manifest = Record<string, unknown>;

/**
 * The YAML that deploys an operator to any Kubernetes cluster (`kubectl apply -f`): the Namespace, the
 * CRDs of its resource types, a ServiceAccount with exactly the RBAC its declarations need (see
 * operatorPermissions), the Service in front of its webhooks, a Deployment with probes and a
 * PodDisruptionBudget. Only Kubernetes' group names and kinds; the webhook configurations are left to
 * the leader, which installs them with the certificate's caBundle.
 */
export function operatorManifests(input: OperatorManifestsInput): string {
  const { name, namespace, image } = input;
  const replicas = input.replicas ?? 2;
  const probePort = input.probePort ?? 8081;
  const webhookPort = input.webhooks ? (input.webhooks.port ?? 9443) : undefined;
  const labels = { 'app.kubernetes.io/name': name };
  const permissions = operatorPermissions({
    ...input,
    leaderElectionNamespace: input.leaderElection === false ? undefined : namespace,
    webhooks: input.webhooks ? { secretNamespace: namespace, secretName: `${name}-webhook-certificate` } : undefined,
  });
  const subject = [{ kind: 'ServiceAccount', name, namespace }];
  const docs: Manifest[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    ...(input.resources ?? []).map((r) => r.crd() as unknown as Manifest),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules: permissions.clusterRules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: subject,
    },
    ...permissions.namespaceRules.flatMap(({ namespace: ns, rules }) => [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns, labels }, rules },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace: ns, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: subject,
      },
    ]),
  ];
  if (webhookPort !== undefined) {
    docs.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${name}-webhooks`, namespace, labels },
      spec: { selector: labels, ports: [{ name: 'webhooks', port: 443, targetPort: 'webhooks', protocol: 'TCP' }] },
    });
  }
  const ports = [{ name: 'probes', containerPort: probePort, protocol: 'TCP' }];
  if (webhookPort !== undefined) ports.push({ name: 'webhooks', containerPort: webhookPort, protocol: 'TCP' });
  docs.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'operator',
              image,
              ...(input.args?.length ? { args: [...input.args] } : {}),
              env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
              ports,
              readinessProbe: { httpGet: { path: '/readyz', port: 'probes' }, periodSeconds: 5 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'probes' }, initialDelaySeconds: 10, periodSeconds: 10 },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
            },
          ],
        },
      },
    },
  });
  if (replicas > 1) {
    docs.push({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, namespace, labels },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    });
  }
  return docs.map((doc) => stringify(doc)).join('---\n');
}
