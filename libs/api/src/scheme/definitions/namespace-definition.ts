import { NamespaceSchema, type Namespace } from '../../kinds/core/namespace';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

export const namespaceDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  subresources: { status: true },
  schema: NamespaceSchema,
  fieldSelectors: { 'status.phase': (o) => as<Namespace>(o).status?.phase ?? '' },
  columns: [
    nameColumn(),
    column('Status', 'string', (o) => as<Namespace>(o).status?.phase ?? '', { description: 'The status of the namespace.' }),
    ageColumn(),
  ],
});
