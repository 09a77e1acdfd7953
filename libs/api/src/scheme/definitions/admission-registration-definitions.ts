import { MutatingWebhookConfigurationSchema, ValidatingWebhookConfigurationSchema } from '../../kinds/admissionregistration/webhook-configuration';
import { ValidatingAdmissionPolicyBindingSchema, ValidatingAdmissionPolicySchema } from '../../kinds/admissionregistration/validating-admission-policy';
import { ageColumn, column, nameColumn } from '../table';
import { validateAdmissionPolicy, validateAdmissionPolicyBinding, validateWebhookConfiguration } from './admission-registration-rules';
import { as, defineKind } from './define-kind';

const GROUP = 'admissionregistration.svc.io';

const webhooksColumn = column('Webhooks', 'integer', (o) => as<{ webhooks?: unknown[] }>(o).webhooks?.length ?? 0, {
  description: 'The number of webhooks of the configuration.',
});

export const validatingWebhookConfigurationDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  resource: 'validatingwebhookconfigurations',
  namespaced: false,
  schema: ValidatingWebhookConfigurationSchema,
  categories: ['api-extensions'],
  validationRules: [validateWebhookConfiguration],
  columns: [nameColumn(), webhooksColumn, ageColumn()],
});

export const mutatingWebhookConfigurationDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  resource: 'mutatingwebhookconfigurations',
  namespaced: false,
  schema: MutatingWebhookConfigurationSchema,
  categories: ['api-extensions'],
  validationRules: [validateWebhookConfiguration],
  columns: [nameColumn(), webhooksColumn, ageColumn()],
});

export const validatingAdmissionPolicyDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  resource: 'validatingadmissionpolicies',
  namespaced: false,
  schema: ValidatingAdmissionPolicySchema,
  categories: ['api-extensions'],
  validationRules: [validateAdmissionPolicy],
  subresources: { status: true },
  // Kubernetes' status strategy of a policy resets its spec and its metadata (ResetObjectMetaForStatus).
  strategy: { tracksGeneration: true, status: { resetFields: [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']] } },
  columns: [
    nameColumn(),
    column('Validations', 'integer', (o) => as<{ spec?: { validations?: unknown[] } }>(o).spec?.validations?.length ?? 0, {
      description: 'Number of validations.',
    }),
    ageColumn(),
  ],
});

export const validatingAdmissionPolicyBindingDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  resource: 'validatingadmissionpolicybindings',
  namespaced: false,
  schema: ValidatingAdmissionPolicyBindingSchema,
  categories: ['api-extensions'],
  validationRules: [validateAdmissionPolicyBinding],
  columns: [
    nameColumn(),
    column('PolicyName', 'string', (o) => as<{ spec?: { policyName?: string } }>(o).spec?.policyName ?? '', { description: 'The policy bound.' }),
    ageColumn(),
  ],
});
