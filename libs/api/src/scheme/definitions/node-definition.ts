import { isRecord } from '@svc/machinery';
import { NodeSchema, type Node } from '../../kinds/core/node';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { ageColumn, column, nameColumn } from '../table';
import type { ApiObject } from '../kind-definition';
import { as, defineKind, records } from './define-kind';
import { NODE_PROXY } from './proxy-locations';

/** Role labels kubectl reads (`node-role.kubernetes.io/<role>`, `kubernetes.io/role`), and the specification's names of them. */
const ROLE_LABEL_PREFIXES = ['node-role.kubernetes.io/', 'node-role.svc.io/'];
const ROLE_LABELS = ['kubernetes.io/role', 'svc.io/role'];

function nodeStatus(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    const prefix = ROLE_LABEL_PREFIXES.find((p) => k.startsWith(p) && k.length > p.length);
    if (prefix !== undefined) roles.add(k.slice(prefix.length));
    else if (ROLE_LABELS.includes(k) && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
}

/** NodeSystemInfo's fields, none of them omitempty in Go: an empty Node status shows them all, empty. */
const NODE_INFO_FIELDS = [
  'architecture',
  'bootID',
  'containerRuntimeVersion',
  'kernelVersion',
  'kubeProxyVersion',
  'kubeletVersion',
  'machineID',
  'operatingSystem',
  'osImage',
  'systemUUID',
] as const;

/**
 * The struct values of Go's NodeStatus, always serialized: `daemonEndpoints.kubeletEndpoint.Port`
 * (0 when unset) and `nodeInfo` with every field (`""` when unset).
 */
function defaultNodeStatus(node: ApiObject): void {
  const status = isRecord(node.status) ? node.status : (node.status = {});
  const daemon = isRecord(status.daemonEndpoints) ? status.daemonEndpoints : (status.daemonEndpoints = {});
  const kubelet = isRecord(daemon.kubeletEndpoint) ? daemon.kubeletEndpoint : (daemon.kubeletEndpoint = {});
  kubelet.Port ??= 0;
  const info = isRecord(status.nodeInfo) ? status.nodeInfo : (status.nodeInfo = {});
  for (const field of NODE_INFO_FIELDS) info[field] ??= '';
}

export const nodeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Node',
  resource: 'nodes',
  namespaced: false,
  shortNames: ['no'],
  subresources: { status: true },
  schema: NodeSchema,
  fieldSelectors: { 'spec.unschedulable': (o) => String(as<Node>(o).spec?.unschedulable ?? false) },
  // A node agent registers its Node with the status it reports; Kubernetes' node strategy keeps no generation.
  strategy: { resetStatusOnCreate: false, tracksGeneration: false, proxy: NODE_PROXY },
  defaultHooks: [defaultNodeStatus],
  columns: [
    nameColumn(),
    column('Status', 'string', (o) => nodeStatus(as<Node>(o)), { description: 'The status of the node.' }),
    column('Roles', 'string', (o) => nodeRoles(as<Node>(o)), { description: 'The roles of the node.' }),
    ageColumn(),
    column('Version', 'string', (o) => as<Node>(o).status?.nodeInfo?.kubeletVersion ?? '', { description: 'Version of the node agent.' }),
    column('Internal-IP', 'string', (o) => address(as<Node>(o), 'InternalIP'), { priority: 1, description: 'Internal IP of the node.' }),
    column('External-IP', 'string', (o) => address(as<Node>(o), 'ExternalIP'), { priority: 1, description: 'External IP of the node.' }),
    column('OS-Image', 'string', (o) => as<Node>(o).status?.nodeInfo?.osImage || '<unknown>', { priority: 1, description: 'OS image reported by the node.' }),
    column('Kernel-Version', 'string', (o) => as<Node>(o).status?.nodeInfo?.kernelVersion || '<unknown>', {
      priority: 1,
      description: 'Kernel version reported by the node.',
    }),
    column('Container-Runtime', 'string', (o) => as<Node>(o).status?.nodeInfo?.containerRuntimeVersion || '<unknown>', {
      priority: 1,
      description: 'Container runtime version reported by the node.',
    }),
  ],
  validationRules: [
    (o): FieldError[] => {
      const spec = o.spec as Record<string, unknown> | undefined;
      const seen = new Set<string>();
      const errors: FieldError[] = [];
      records(spec?.taints).forEach((t, i) => {
        const key = `${String(t.key)}:${String(t.effect)}`;
        if (seen.has(key)) errors.push(fieldErrors.duplicate(`spec.taints[${i}]`, `${String(t.key)}:${String(t.effect)}`));
        seen.add(key);
      });
      return errors;
    },
  ],
});
