import { SecretSchema, type Secret } from '../../kinds/core/secret';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

export const secretDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  namespaced: true,
  schema: SecretSchema,
  fieldSelectors: { type: (o) => as<Secret>(o).type ?? '' },
  columns: [
    nameColumn(),
    column('Type', 'string', (o) => as<Secret>(o).type ?? '', { description: 'The type of the secret.' }),
    column('Data', 'integer', (o) => Object.keys(as<Secret>(o).data ?? {}).length, { description: 'Number of keys in data.' }),
    ageColumn(),
  ],
});
