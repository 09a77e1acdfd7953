import type { ServedResource } from '@svc/client';
import { groupOfApiVersion } from '@svc/machinery';
import { deletableResources, groupVersionOf } from './deletable-resources';

const served = (group: string, resource: string, verbs: string[]): ServedResource => ({
  group,
  version: 'v1',
  resource,
  namespaced: true,
  kind: resource,
  verbs,
});
const all = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

describe('deletableResources', () => {
  it('keeps what supports list, watch and delete, and leaves events out as Kubernetes does', () => {
    const resources = [
      served('', 'configmaps', all),
      served('', 'events', all),
      served('events.k8s.io', 'events', all),
      served('coordination.svc.io', 'leases', all),
      served('authentication.k8s.io', 'tokenreviews', ['create']),
      served('example.com', 'readonly', ['get', 'list', 'watch']),
    ];
    expect(deletableResources(resources).map((r) => `${r.resource}.${r.group}`)).toEqual(['configmaps.', 'leases.coordination.svc.io']);
  });

  it('names group versions and groups as discovery does', () => {
    expect(groupVersionOf({ group: '', version: 'v1' })).toBe('v1');
    expect(groupVersionOf({ group: 'apps', version: 'v1' })).toBe('apps/v1');
    expect(groupOfApiVersion('v1')).toBe('');
    expect(groupOfApiVersion('apps/v1')).toBe('apps');
  });
});
