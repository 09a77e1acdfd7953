import { decodeContinue, encodeContinue } from './continue-token';
import { keyAfter, objectStorageKey, prefixKey, prefixRange } from './keys';

describe('storage keys', () => {
  test('namespaced and cluster-scoped objects, core group under "core"', () => {
    expect(objectStorageKey({ prefix: '/registry', group: '', resource: 'pods', namespace: 'default', name: 'web' })).toBe('/registry/core/pods/default/web');
    expect(objectStorageKey({ prefix: '/registry/', group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' })).toBe(
      '/registry/apps/deployments/ns/d',
    );
    expect(objectStorageKey({ prefix: '/registry', group: '', resource: 'namespaces', name: 'default' })).toBe('/registry/core/namespaces/default');
    expect(prefixKey({ prefix: '/registry', group: 'coordination.svc.io', resource: 'leases' })).toBe('/registry/coordination.svc.io/leases/');
    expect(prefixKey({ prefix: '/registry', group: '', resource: 'pods', namespace: 'a' })).toBe('/registry/core/pods/a/');
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
