import { isRecord } from '@svc/machinery';
import { PodTemplateSchema, type PodTemplate } from '../../kinds/core/pod-template';
import type { FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { column, nameColumn } from '../table';
import { as, defineKind, formatLabels } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { containerCells, templateErrors } from './workload-rules';

function templateOf(obj: ApiObject): Record<string, unknown> | undefined {
  return isRecord(obj.template) ? obj.template : undefined;
}

/** ValidatePodTemplate: the pods made from it must be valid pods (any restart policy). */
function validatePodTemplate(obj: ApiObject): FieldError[] {
  const template = templateOf(obj);
  if (template === undefined) return [];
  return [...templateErrors(template, 'template'), ...validatePodSpec(template.spec, 'template.spec')];
}

/** Kubernetes' PodTemplate (v1): a pod described for others (controllers, tools) to make copies of. */
export const podTemplateDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  resource: 'podtemplates',
  namespaced: true,
  schema: PodTemplateSchema,
  // podTemplateStrategy: a generation raised by each change of the template, though there is no status.
  strategy: { tracksGeneration: true, podSpec: { path: ['template', 'spec'], template: true } },
  columns: [
    nameColumn(),
    column('Containers', 'string', (o) => containerCells(as<PodTemplate>(o).template?.spec?.containers).names, {
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<PodTemplate>(o).template?.spec?.containers).images, {
      description: 'Images referenced by each container in the template.',
    }),
    column('Pod Labels', 'string', (o) => formatLabels(as<PodTemplate>(o).template?.metadata?.labels), { description: 'The labels for the pod template.' }),
  ],
  defaultHooks: [(o) => defaultPodSpec(templateOf(o)?.spec)],
  validationRules: [validatePodTemplate],
});
