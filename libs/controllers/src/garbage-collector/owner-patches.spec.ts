import { jsonPatch } from '@svc/machinery';
import { AbsentOwnerCache } from './absent-owner-cache';
import { replaceListPatch, unblocked, withoutOwners } from './owner-patches';

const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'ua', blockOwnerDeletion: true };
const b = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'b', uid: 'ub', controller: true };

describe('owner reference patches', () => {
  it('remove references by uid and unblock owners', () => {
    expect(withoutOwners([a, b], ['ua'])).toEqual([b]);
    expect(withoutOwners([a, b], ['ua', 'ub'])).toEqual([]);
    expect(unblocked([a, b])).toEqual([{ ...a, blockOwnerDeletion: false }, b]);
  });

  it('apply only to the object and list they were computed from', () => {
    const obj = { metadata: { name: 'd', uid: 'ud', ownerReferences: [a, b] } };
    expect(jsonPatch(obj, replaceListPatch('ud', '/metadata/ownerReferences', [a, b], [b]))).toEqual({
      metadata: { name: 'd', uid: 'ud', ownerReferences: [b] },
    });
    expect(jsonPatch(obj, replaceListPatch('ud', '/metadata/ownerReferences', [a, b], []))).toEqual({ metadata: { name: 'd', uid: 'ud' } });
    expect(() => jsonPatch(obj, replaceListPatch('other', '/metadata/ownerReferences', [a, b], [b]))).toThrow(/test/);
    expect(() => jsonPatch(obj, replaceListPatch('ud', '/metadata/ownerReferences', [a], []))).toThrow(/test/);
  });
});

describe('AbsentOwnerCache', () => {
  it('remembers the most recently used coordinates up to its capacity', () => {
    const cache = new AbsentOwnerCache(2);
    const owner = (uid: string) => ({ uid, group: '', kind: 'ConfigMap', name: uid, namespace: 'ns' });
    cache.add(owner('1'));
    cache.add(owner('2'));
    expect(cache.has(owner('1'))).toBe(true);
    cache.add(owner('3'));
    expect(cache.has(owner('2'))).toBe(false);
    expect(cache.has(owner('1'))).toBe(true);
    expect(cache.has({ ...owner('1'), namespace: 'other' })).toBe(false);
    expect(cache.size).toBe(2);
  });
});
