import { LeaseSchema, type Lease } from '../../kinds/coordination/lease';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

export const leaseDefinition = defineKind({
  group: 'coordination.svc.io',
  version: 'v1',
  kind: 'Lease',
  resource: 'leases',
  namespaced: true,
  schema: LeaseSchema,
  allowCreateOnUpdate: true,
  columns: [
    nameColumn(),
    column('Holder', 'string', (o) => as<Lease>(o).spec?.holderIdentity ?? '', { description: 'The identity of the holder of the lease.' }),
    ageColumn(),
  ],
});
