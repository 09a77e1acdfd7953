import { decodeContinue, encodeContinue } from './continue-token';
import { keyAfter, objectStorageKey, prefixKey, prefixRange, resourceOfKey } from './keys';

describe('storage keys', () => {
  test('Kubernetes layout: built-in resources under their plural, a few elsewhere, custom resources under group/resource', () => {
    expect(objectStorageKey({ prefix: '/registry', group: '', resource: 'pods', namespace: 'default', name: 'web' })).toBe('/registry/pods/default/web');
    expect(objectStorageKey({ prefix: '/registry/', group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' })).toBe('/registry/deployments/ns/d');
    expect(objectStorageKey({ prefix: '/registry', group: '', resource: 'namespaces', name: 'default' })).toBe('/registry/namespaces/default');
    expect(prefixKey({ prefix: '/registry', group: 'coordination.svc.io', resource: 'leases' })).toBe('/registry/leases/');
    expect(prefixKey({ prefix: '/registry', group: 'coordination.k8s.io', resource: 'leases', namespace: 'a' })).toBe('/registry/leases/a/');
    // The exceptions of Kubernetes' storage factory.
    expect(objectStorageKey({ prefix: '/registry', group: '', resource: 'nodes', name: 'n1' })).toBe('/registry/minions/n1');
    expect(prefixKey({ prefix: '/registry', group: '', resource: 'services', namespace: 'a' })).toBe('/registry/services/specs/a/');
    expect(prefixKey({ prefix: '/registry', group: '', resource: 'endpoints' })).toBe('/registry/services/endpoints/');
    expect(prefixKey({ prefix: '/registry', group: '', resource: 'replicationcontrollers' })).toBe('/registry/controllers/');
    expect(prefixKey({ prefix: '/registry', group: 'apiextensions.svc.io', resource: 'customresourcedefinitions' })).toBe(
      '/registry/apiextensions.k8s.io/customresourcedefinitions/',
    );
    // Custom resources, by their group's dot, or because the caller says so.
    expect(objectStorageKey({ prefix: '/registry', group: 'example.com', resource: 'widgets', namespace: 'a', name: 'w' })).toBe(
      '/registry/example.com/widgets/a/w',
    );
    expect(prefixKey({ prefix: '/registry', group: 'widgets.svc.io', resource: 'widgets', builtIn: false })).toBe('/registry/widgets.svc.io/widgets/');
  });

  test('a key names its resource back (the group of a built-in one from the caller)', () => {
    const groups = new Map([['deployments', 'apps']]);
    expect(resourceOfKey('/registry/secrets/ns/s', '/registry')).toMatchObject({ group: '', resource: 'secrets' });
    expect(resourceOfKey('/registry/deployments/ns/d', '/registry', (r) => groups.get(r))).toMatchObject({ group: 'apps', resource: 'deployments' });
    expect(resourceOfKey('/registry/minions/n1', '/registry/')).toMatchObject({ group: '', resource: 'nodes' });
    expect(resourceOfKey('/registry/services/specs/ns/s', '/registry')).toMatchObject({ group: '', resource: 'services' });
    expect(resourceOfKey('/registry/example.com/widgets/a/w', '/registry')).toMatchObject({ group: 'example.com', resource: 'widgets' });
    expect(resourceOfKey('/other/secrets/ns/s', '/registry')).toBeUndefined();
    expect(resourceOfKey('/registry/services/specs/', '/registry')?.resourcePrefix).toBe('/registry/services/specs/');
    // Keys of the earlier layout still name their resource.
    const builtInGroups = new Set(['', 'apps']);
    expect(resourceOfKey('/registry/core/secrets/ns/s', '/registry', undefined, (g) => builtInGroups.has(g))).toEqual({
      group: '',
      resource: 'secrets',
      resourcePrefix: '/registry/core/secrets/',
    });
    expect(resourceOfKey('/registry/apps/deployments/', '/registry', undefined, (g) => builtInGroups.has(g))).toEqual({
      group: 'apps',
      resource: 'deployments',
      resourcePrefix: '/registry/apps/deployments/',
    });
  });

  test('segments that would escape their place are refused', () => {
    expect(() => objectStorageKey({ prefix: '/r', group: '', resource: 'pods', namespace: 'a/b', name: 'x' })).toThrow(TypeError);
    expect(() => objectStorageKey({ prefix: '/r', group: '', resource: 'pods', name: '..' })).toThrow(TypeError);
    expect(() => objectStorageKey({ prefix: '/r', group: '', resource: 'pods', name: '' })).toThrow(TypeError);
  });

  test('a prefix range holds exactly the keys that start with the prefix', () => {
    const { lo, hi } = prefixRange('/registry/core/pods/a/');
    const inside = ['/registry/core/pods/a/', '/registry/core/pods/a/x', '/registry/core/pods/a/\u{10ffff}'];
    const outside = ['/registry/core/pods/a', '/registry/core/pods/ab/x', '/registry/core/pods/a0'];
    for (const k of inside) expect(k >= lo && k < hi).toBe(true);
    for (const k of outside) expect(k >= lo && k < hi).toBe(false);
    expect(keyAfter('a') > 'a' && keyAfter('a') < 'a0').toBe(true);
  });

  test('continue tokens round-trip and reject anything else', () => {
    const token = encodeContinue({ revision: 42, after: 'web-1' });
    expect(decodeContinue(token)).toEqual({ revision: 42, after: 'web-1' });
    for (const bad of ['', 'xyz', Buffer.from('{"v":"other","rv":1,"after":""}').toString('base64url')]) {
      expect(() => decodeContinue(bad)).toThrow(expect.objectContaining({ code: 'InvalidArgument' }));
    }
  });
});
