import { BUILTIN_KINDS } from '@svc/api';
import { BUILTIN_RESOURCES } from './builtin-resources';
import { Client } from './client';

describe('built-in resource clients', () => {
  it('covers every built-in kind of the scheme exactly once, keyed by its camel-cased plural (after its group, for a second kind of one plural)', () => {
    const fromMap = Object.entries(BUILTIN_RESOURCES).map(([key, r]) => [key.toLowerCase(), `${r.info.group}/${r.info.version}/${r.info.resource}`]);
    const core = new Set(BUILTIN_KINDS.filter((d) => d.group === '').map((d) => d.resource));
    const keyOf = (group: string, resource: string) => (group !== '' && core.has(resource) ? `${group.split('.')[0]}${resource}` : resource);
    const fromScheme = BUILTIN_KINDS.map((d) => [keyOf(d.group, d.resource), `${d.group}/${d.version}/${d.resource}`]);
    expect(fromMap.sort()).toEqual(fromScheme.sort());
  });

  it('serves each as a property of the client, addressed from its definition', () => {
    const client = new Client({ server: 'https://127.0.0.1:1' });
    expect(client.deployments.info).toMatchObject({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, kind: 'Deployment' });
    expect(client.nodes.info.namespaced).toBe(false);
    expect(client.configMaps).toBe(client.configMaps);
    expect(client.forKind('apps/v1', 'Deployment').info).toEqual(client.deployments.info);
    expect(() => client.forKind('example.com/v1', 'Widget')).toThrow(/no matches for kind "Widget"/);
    client.close();
  });
});
