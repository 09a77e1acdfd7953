import { NodeSchema, type Node } from '../../kinds/core/node';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind, records } from './define-kind';

const ROLE_LABEL_PREFIX = 'node-role.svc.io/';
const ROLE_LABEL = 'svc.io/role';

function nodeStatus(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX) && k.length > ROLE_LABEL_PREFIX.length) roles.add(k.slice(ROLE_LABEL_PREFIX.length));
    else if (k === ROLE_LABEL && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? '<none>';
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
  // A node agent registers its Node with the status it reports.
  strategy: { resetStatusOnCreate: false },
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
