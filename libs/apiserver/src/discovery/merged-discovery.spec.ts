import { builtinScheme } from '@svc/api';
import { aggregatedDiscovery, apiGroupList } from './discovery-documents';
import { mergeGroupDiscoveryList, mergeGroupList } from './merged-discovery';
import { ServedApis } from './served-apis';

const metrics = {
  name: 'metrics.k8s.io',
  priority: 100,
  versions: [{ version: 'v1beta1', versionPriority: 100, stale: false, resources: [] }],
};
const paas = {
  name: 'paas.example.com',
  priority: 17900,
  versions: [
    { version: 'v1', versionPriority: 10, stale: true, resources: [] },
    { version: 'v2', versionPriority: 20, stale: false, resources: [] },
  ].sort((a, b) => b.versionPriority - a.versionPriority),
};

describe('discovery with aggregated groups', () => {
  const apis = new ServedApis(builtinScheme());

  it('places each aggregated group by its priority among the local ones, versions by theirs', () => {
    const names = mergeGroupList(apiGroupList(apis), [metrics, paas]).groups.map((g) => g.name);
    expect(names.slice(0, 3)).toEqual(['apiregistration.k8s.io', 'paas.example.com', 'apps']);
    expect(names[names.length - 1]).toBe('metrics.k8s.io');
    const group = mergeGroupList(apiGroupList(apis), [paas]).groups.find((g) => g.name === 'paas.example.com');
    expect(group?.preferredVersion).toEqual({ groupVersion: 'paas.example.com/v2', version: 'v2' });
  });

  it('marks a version whose server could not be asked Stale in the aggregated form', () => {
    const items = mergeGroupDiscoveryList(aggregatedDiscovery(apis, 'apis', 'v2'), [paas, metrics]).items;
    expect(items.find((i) => i.metadata.name === 'paas.example.com')?.versions.map((v) => [v.version, v.freshness])).toEqual([
      ['v2', 'Current'],
      ['v1', 'Stale'],
    ]);
    expect(items.map((i) => i.metadata.name).indexOf('paas.example.com')).toBe(1);
  });
});
