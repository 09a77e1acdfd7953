import { ServiceAccountSchema, type ServiceAccount } from '../../kinds/core/service-account';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

export const serviceAccountDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  resource: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  strategy: { returnDeletedObject: true },
  schema: ServiceAccountSchema,
  columns: [
    nameColumn(),
    column('Secrets', 'integer', (o) => (as<ServiceAccount>(o).secrets ?? []).length, { description: 'Number of secrets of the service account.' }),
    ageColumn(),
  ],
});
