import { builtinScheme, kindsFromCrd, type CustomResourceDefinition } from '@svc/api';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, storageVersionHash } from './discovery-documents';
import { applyRuntimeConfig, groupVersionEnabled, ServedApis } from './served-apis';

function crd(versions: Array<{ name: string; served: boolean; storage: boolean }>): CustomResourceDefinition {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      scope: 'Cluster',
      versions: versions.map((v) => ({
        ...v,
        schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } },
        subresources: { status: {} },
      })),
    },
  };
}

function withWidgets(versions = [{ name: 'v1', served: true, storage: true }]): ServedApis {
  const scheme = builtinScheme();
  for (const def of kindsFromCrd(crd(versions))) scheme.register(def);
  return new ServedApis(scheme);
}

describe('discovery documents', () => {
  it('answers /api with the core versions and the address clients should use', () => {
    expect(apiVersions(new ServedApis(builtinScheme()), '10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('lists core resources with verbs, short names, storage version hashes and subresources', () => {
    const list = apiResourceList(new ServedApis(builtinScheme()), '', 'v1')!;
    expect(list).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1' });
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    expect(byName.get('pods')).toEqual({
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      // Kubernetes' own value for v1 Pod, so clients comparing hashes see the same thing.
      storageVersionHash: 'xPOwRZ+Yhw8=',
    });
    expect(byName.get('pods/status')).toEqual({ name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('namespaces/finalize')).toEqual({
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(byName.get('secrets')?.shortNames).toBeUndefined();
    const names = list.resources.map((r) => r.name);
    expect(names.indexOf('pods')).toBeLessThan(names.indexOf('pods/status'));
  });

  it('gives the scale subresource the autoscaling/v1 Scale kind', () => {
    const list = apiResourceList(new ServedApis(builtinScheme()), 'apps', 'v1')!;
    expect(list.groupVersion).toBe('apps/v1');
    expect(list.resources.find((r) => r.name === 'deployments/scale')).toEqual({
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    expect(list.resources.find((r) => r.name === 'deployments')).toMatchObject({ shortNames: ['deploy'], storageVersionHash: '8aSe+NMegvE=' });
  });

  it('lists every named group, CRD groups as they come and go', () => {
    const scheme = builtinScheme();
    const apis = new ServedApis(scheme);
    expect(apiGroupList(apis).groups.map((g) => g.name)).toEqual([
      'apiregistration.k8s.io',
      'apps',
      'events.k8s.io',
      'autoscaling',
      'batch',
      'certificates.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'coordination.k8s.io',
      'node.k8s.io',
      'discovery.k8s.io',
      'flowcontrol.apiserver.k8s.io',
      'apiregistration.svc.io',
      'events.svc.io',
      'certificates.svc.io',
      'networking.svc.io',
      'rbac.authorization.svc.io',
      'storage.svc.io',
      'admissionregistration.svc.io',
      'apiextensions.svc.io',
      'scheduling.svc.io',
      'coordination.svc.io',
      'node.svc.io',
      'discovery.svc.io',
      'flowcontrol.apiserver.svc.io',
    ]);
    for (const def of kindsFromCrd(crd([{ name: 'v1', served: true, storage: true }]))) scheme.register(def);
    expect(apiGroupList(apis).groups.find((g) => g.name === 'example.com')).toEqual({
      name: 'example.com',
      versions: [{ groupVersion: 'example.com/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });
    expect(apiResourceList(apis, 'example.com', 'v1')!.resources).toEqual([
      {
        name: 'widgets',
        singularName: 'widget',
        namespaced: false,
        kind: 'Widget',
        verbs: expect.any(Array),
        shortNames: ['wd'],
        categories: ['all'],
        storageVersionHash: storageVersionHash('example.com', 'v1', 'Widget'),
      },
      { name: 'widgets/status', singularName: '', namespaced: false, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
    scheme.unregisterCrd('widgets.example.com');
    expect(apiGroupList(apis).groups.map((g) => g.name)).not.toContain('example.com');
    expect(apiGroup(apis, 'example.com')).toBeUndefined();
    expect(apiResourceList(apis, 'example.com', 'v1')).toBeUndefined();
  });

  it('orders versions by preference and hashes the storage version for every served one', () => {
    const apis = withWidgets([
      { name: 'v1beta1', served: true, storage: false },
      { name: 'v1', served: true, storage: true },
      { name: 'v2alpha1', served: false, storage: false },
    ]);
    expect(apiGroup(apis, 'example.com')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'example.com',
      versions: [
        { groupVersion: 'example.com/v1', version: 'v1' },
        { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });
    const v1beta1 = apiResourceList(apis, 'example.com', 'v1beta1')!.resources[0];
    expect(v1beta1.storageVersionHash).toBe(storageVersionHash('example.com', 'v1', 'Widget'));
    expect(apiResourceList(apis, 'example.com', 'v2alpha1')).toBeUndefined();
  });

  it('serves the aggregated form of /api and /apis as client-go reads it', () => {
    const apis = withWidgets();
    const core = aggregatedDiscovery(apis, 'api', 'v2');
    expect(core).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(core.items).toHaveLength(1);
    expect(core.items[0].metadata).toEqual({ creationTimestamp: null });
    const pods = core.items[0].versions[0].resources.find((r) => r.resource === 'pods');
    expect(pods).toEqual({
      resource: 'pods',
      responseKind: { group: '', version: 'v1', kind: 'Pod' },
      scope: 'Namespaced',
      singularResource: 'pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        { subresource: 'binding', responseKind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] },
        { subresource: 'ephemeralcontainers', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
        { subresource: 'status', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    const named = aggregatedDiscovery(apis, 'apis', 'v2beta1');
    expect(named.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(named.items.map((g) => g.metadata.name)).toEqual([
      'apiregistration.k8s.io',
      'apps',
      'events.k8s.io',
      'autoscaling',
      'batch',
      'certificates.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'coordination.k8s.io',
      'node.k8s.io',
      'discovery.k8s.io',
      'flowcontrol.apiserver.k8s.io',
      'apiregistration.svc.io',
      'events.svc.io',
      'certificates.svc.io',
      'networking.svc.io',
      'rbac.authorization.svc.io',
      'storage.svc.io',
      'admissionregistration.svc.io',
      'apiextensions.svc.io',
      'scheduling.svc.io',
      'coordination.svc.io',
      'node.svc.io',
      'discovery.svc.io',
      'flowcontrol.apiserver.svc.io',
      'example.com',
    ]);
    const apps = named.items.find((g) => g.metadata.name === 'apps')!;
    expect(apps.versions[0]).toMatchObject({ version: 'v1', freshness: 'Current' });
    expect(apps.versions[0].resources.find((r) => r.resource === 'deployments')?.subresources).toEqual([
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
    ]);
    expect(named.items.find((g) => g.metadata.name === 'example.com')!.versions[0].resources[0]).toMatchObject({ resource: 'widgets', scope: 'Cluster' });
  });
});

describe('--runtime-config', () => {
  it('reads group versions, tracks and api/all with Kubernetes precedence', () => {
    expect(groupVersionEnabled({}, 'apps', 'v1')).toBe(true);
    expect(groupVersionEnabled({ 'apps/v1': 'false' }, 'apps', 'v1')).toBe(false);
    expect(groupVersionEnabled({ 'api/all': 'false' }, 'apps', 'v1')).toBe(false);
    expect(groupVersionEnabled({ 'api/all': 'false', 'apps/v1': 'true' }, 'apps', 'v1')).toBe(true);
    expect(groupVersionEnabled({ 'api/ga': 'false' }, 'apps', 'v1')).toBe(false);
    expect(groupVersionEnabled({ 'api/beta': 'false' }, 'apps', 'v1')).toBe(true);
    expect(groupVersionEnabled({ 'api/v1': 'false' }, '', 'v1')).toBe(false);
    expect(groupVersionEnabled({ v1: 'false' }, '', 'v1')).toBe(false);
    expect(groupVersionEnabled({ 'api/legacy': 'false' }, '', 'v1')).toBe(false);
  });

  it('takes disabled built-in versions out of discovery, but never CRD versions', () => {
    const scheme = builtinScheme();
    for (const def of kindsFromCrd(crd([{ name: 'v1', served: true, storage: true }]))) scheme.register(def);
    const apis = new ServedApis(scheme, { 'apps/v1': 'false', 'api/all': 'true', 'example.com/v1': 'false' });
    expect(apiGroupList(apis).groups.map((g) => g.name)).toEqual([
      'apiregistration.k8s.io',
      'events.k8s.io',
      'autoscaling',
      'batch',
      'certificates.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'coordination.k8s.io',
      'node.k8s.io',
      'discovery.k8s.io',
      'flowcontrol.apiserver.k8s.io',
      'apiregistration.svc.io',
      'events.svc.io',
      'certificates.svc.io',
      'networking.svc.io',
      'rbac.authorization.svc.io',
      'storage.svc.io',
      'admissionregistration.svc.io',
      'apiextensions.svc.io',
      'scheduling.svc.io',
      'coordination.svc.io',
      'node.svc.io',
      'discovery.svc.io',
      'flowcontrol.apiserver.svc.io',
      'example.com',
    ]);
    expect(apiResourceList(apis, 'apps', 'v1')).toBeUndefined();
    expect(aggregatedDiscovery(apis, 'apis', 'v2').items.map((g) => g.metadata.name)).not.toContain('apps');
    const noCore = new ServedApis(builtinScheme(), { 'api/v1': 'false' });
    expect(apiVersions(noCore, 'x:1').versions).toEqual([]);
    expect(apiResourceList(noCore, '', 'v1')).toBeUndefined();
  });

  it('can take disabled built-in kinds out of the scheme itself, for every part of the server', () => {
    const scheme = builtinScheme();
    const removed = applyRuntimeConfig(scheme, { 'coordination.svc.io/v1': 'false' });
    expect(removed.map((d) => d.kind)).toEqual(['Lease']);
    expect(scheme.byResource({ group: 'coordination.svc.io', version: 'v1', resource: 'leases' })).toBeUndefined();
    expect(apiGroupList(new ServedApis(scheme)).groups.map((g) => g.name)).toEqual([
      'apiregistration.k8s.io',
      'apps',
      'events.k8s.io',
      'autoscaling',
      'batch',
      'certificates.k8s.io',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'node.k8s.io',
      'discovery.k8s.io',
      'flowcontrol.apiserver.k8s.io',
      'apiregistration.svc.io',
      'events.svc.io',
      'certificates.svc.io',
      'networking.svc.io',
      'rbac.authorization.svc.io',
      'storage.svc.io',
      'admissionregistration.svc.io',
      'apiextensions.svc.io',
      'scheduling.svc.io',
      'node.svc.io',
      'discovery.svc.io',
      'flowcontrol.apiserver.svc.io',
    ]);
    // Either name of a group turns both off.
    const viaKubernetesName = builtinScheme();
    expect(applyRuntimeConfig(viaKubernetesName, { 'coordination.k8s.io/v1': 'false' }).map((d) => d.kind)).toEqual(['Lease']);
    expect(viaKubernetesName.byResource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' })).toBeUndefined();
  });

  it('refuses a value other than true or false', () => {
    expect(() => new ServedApis(builtinScheme(), { 'apps/v1': 'maybe' })).toThrow(/must be true or false/);
  });
});
