import { isDNS1035Label, isDNS1123Subdomain } from '@svc/machinery';
import { apiServiceAvailableCondition, APIServiceSchema, type APIService } from '../../kinds/apiregistration/api-service';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

/** Bytes of a base64 caBundle, as Go's validation counts them. */
function bundleBytes(caBundle: string): number {
  return Buffer.from(caBundle, 'base64').length;
}

/** ValidateAPIService (kube-aggregator): the name is `<version>.<group>`, the priorities in range, TLS settings of a remote one only. */
function validateAPIService(obj: ApiObject): FieldError[] {
  const apiService = as<APIService>(obj);
  const spec = apiService.spec ?? { groupPriorityMinimum: 0, versionPriority: 0 };
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const errors: FieldError[] = [];
  const name = apiService.metadata?.name;
  const requiredName = `${version}.${group}`;
  if (name !== undefined && name !== '' && name !== requiredName && !['.', '..'].includes(name) && !/[/%]/.test(name)) {
    errors.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group === '' && version !== 'v1') errors.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const message of isDNS1123Subdomain(group)) errors.push(fieldErrors.invalid('spec.group', group, message));
  for (const message of isDNS1035Label(version)) errors.push(fieldErrors.invalid('spec.version', version, message));
  if (spec.groupPriorityMinimum <= 0 || spec.groupPriorityMinimum > 20000) {
    errors.push(fieldErrors.invalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum, 'must be positive and less than 20000'));
  }
  if (spec.versionPriority <= 0 || spec.versionPriority > 1000) {
    errors.push(fieldErrors.invalid('spec.versionPriority', spec.versionPriority, 'must be positive and less than 1000'));
  }
  const caBundle = spec.caBundle ?? '';
  if (caBundle !== '' && !/^[A-Za-z0-9+/]*={0,2}$/.test(caBundle)) errors.push(fieldErrors.invalid('spec.caBundle', '<bytes>', 'must be base64'));
  const service = spec.service;
  if (service === undefined || service === null) {
    if (caBundle !== '') errors.push(fieldErrors.invalid('spec.caBundle', `${bundleBytes(caBundle)} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) {
      errors.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    }
    return errors;
  }
  if (!service.namespace) errors.push(fieldErrors.required('spec.service.namespace'));
  if (!service.name) errors.push(fieldErrors.required('spec.service.name'));
  if (spec.insecureSkipTLSVerify === true && caBundle !== '') {
    errors.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errors;
}

/** kubectl's AVAILABLE column: True, or the status with its reason (`False (ServiceNotFound)`), Unknown without a condition. */
function availableCell(apiService: APIService): string {
  const condition = apiServiceAvailableCondition(apiService);
  if (condition === undefined) return 'Unknown';
  if (condition.status === 'True' || !condition.reason) return condition.status;
  return `${condition.status} (${condition.reason})`;
}

/** Kubernetes' APIService (apiregistration.k8s.io/v1): a group version and the server that serves it. */
export const apiServiceDefinition = defineKind({
  group: 'apiregistration.svc.io',
  version: 'v1',
  kind: 'APIService',
  resource: 'apiservices',
  namespaced: false,
  categories: ['api-extensions'],
  schema: APIServiceSchema,
  subresources: { status: true },
  columns: [
    nameColumn(),
    column(
      'Service',
      'string',
      (o) => {
        const service = as<APIService>(o).spec?.service;
        return service ? `${service.namespace ?? ''}/${service.name ?? ''}` : 'Local';
      },
      { description: 'The reference to the service that hosts this API endpoint.' },
    ),
    column('Available', 'string', (o) => availableCell(as<APIService>(o)), { description: 'Whether this service is available.' }),
    ageColumn(),
  ],
  validationRules: [validateAPIService],
});
