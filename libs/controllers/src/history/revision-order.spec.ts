import type { ControllerRevision } from '@svc/api';
import { CONTROLLER_REVISION_HASH_LABEL, controllerRevisionName, hashControllerRevision, newControllerRevision } from './revision-hash';
import { equalRevision, findEqualRevisions, nextRevisionNumber, revisionsBeyondLimit, sortControllerRevisions } from './revision-order';
import { fnv32, safeEncodeString } from '../common/object-hash';

const revision = (name: string, number: number, data: Record<string, unknown> = { n: name }, created = '2026-01-01T00:00:00Z'): ControllerRevision => ({
  metadata: { name, creationTimestamp: created },
  data,
  revision: number,
});

describe('ControllerRevision names and hashes', () => {
  it('hashes the data as sorted JSON with FNV-1, the collision count appended in decimal, safe-encoded', () => {
    const data = { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'c', image: 'busybox' }] } } } };
    const json = '{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"image":"busybox","name":"c"}]}}}}';
    expect(hashControllerRevision(data)).toBe(safeEncodeString(String(fnv32(Buffer.from(json)))));
    expect(hashControllerRevision(data, 0)).toBe(safeEncodeString(String(fnv32(Buffer.from(`${json}0`)))));
    expect(hashControllerRevision(data, 12)).toBe(safeEncodeString(String(fnv32(Buffer.from(`${json}12`)))));
    expect(hashControllerRevision(data, 1)).not.toBe(hashControllerRevision(data, 0));
  });

  it('names a revision <owner>-<hash>, the owner cut to 223 characters', () => {
    expect(controllerRevisionName('web', 'abc')).toBe('web-abc');
    expect(controllerRevisionName('x'.repeat(250), 'abc')).toBe(`${'x'.repeat(223)}-abc`);
  });

  it('makes a revision with the template labels, the hash label and the owner as controller', () => {
    const owner = { metadata: { name: 'web', namespace: 'ns', uid: 'u-1' } };
    const cr = newControllerRevision(owner, { apiVersion: 'apps/v1', kind: 'StatefulSet' }, { app: 'web' }, { a: 1 }, 3, 0);
    const hash = hashControllerRevision({ a: 1 }, 0);
    expect(cr.metadata).toMatchObject({ name: `web-${hash}`, namespace: 'ns', labels: { app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: hash } });
    expect(cr.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true },
    ]);
    expect(cr.revision).toBe(3);
  });
});

describe('ControllerRevision order and history', () => {
  it('sorts by number, then creation time, then name', () => {
    const sorted = sortControllerRevisions([
      revision('c', 2),
      revision('b', 1, {}, '2026-01-02T00:00:00Z'),
      revision('z', 1, {}, '2026-01-01T00:00:00Z'),
      revision('a', 1, {}, '2026-01-01T00:00:00Z'),
    ]);
    expect(sorted.map((r) => r.metadata?.name)).toEqual(['a', 'z', 'b', 'c']);
  });

  it('numbers the next revision one above the highest, 1 for the first', () => {
    expect(nextRevisionNumber([])).toBe(1);
    expect(nextRevisionNumber([revision('a', 4), revision('b', 2)])).toBe(5);
  });

  it('finds revisions of equal data, whatever the key order', () => {
    const a = revision('a', 1, { spec: { x: 1, y: [1, 2] } });
    const b = revision('b', 2, { spec: { y: [1, 2], x: 1 } });
    const c = revision('c', 3, { spec: { x: 2 } });
    expect(equalRevision(a, b)).toBe(true);
    expect(equalRevision(a, c)).toBe(false);
    expect(equalRevision(undefined, undefined)).toBe(true);
    expect(equalRevision(a, undefined)).toBe(false);
    expect(findEqualRevisions([a, c, b], a).map((r) => r.metadata?.name)).toEqual(['a', 'b']);
  });

  it('deletes the oldest revisions beyond the limit, never a live one', () => {
    const all = [revision('r1', 1), revision('r2', 2), revision('r3', 3), revision('r4', 4), revision('r5', 5)];
    expect(revisionsBeyondLimit(all, new Set(['r5', 'r1']), 2).map((r) => r.metadata?.name)).toEqual(['r2']);
    expect(revisionsBeyondLimit(all, new Set(['r5']), 0).map((r) => r.metadata?.name)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(revisionsBeyondLimit(all, new Set(), 10)).toEqual([]);
  });
});
