import { LabelQuery } from '@svc/machinery';
import { Indexer } from './indexer';
import { Lister } from './lister';
import type { TestPod } from './testing/objects';

function labelled(namespace: string | undefined, name: string, labels: Record<string, string>): TestPod {
  return { metadata: { ...(namespace ? { namespace } : {}), name, labels } };
}

describe('Lister', () => {
  const store = new Indexer<TestPod>();
  store.add(labelled('a', 'web-1', { app: 'web', tier: 'front' }));
  store.add(labelled('a', 'db-1', { app: 'db' }));
  store.add(labelled('b', 'web-2', { app: 'web' }));
  store.add(labelled(undefined, 'cluster-thing', { app: 'web' }));
  const lister = new Lister(store);
  const names = (items: TestPod[]) => items.map((p) => p.metadata.name).sort();

  it('lists everything, or what a label selector in any form matches', () => {
    expect(names(lister.list())).toEqual(['cluster-thing', 'db-1', 'web-1', 'web-2']);
    expect(names(lister.list('app=web,tier!=front'))).toEqual(['cluster-thing', 'web-2']);
    expect(names(lister.list({ app: 'db' }))).toEqual(['db-1']);
    expect(names(lister.list(LabelQuery.parse('tier')))).toEqual(['web-1']);
    expect(lister.list(LabelQuery.nothing())).toEqual([]);
    expect(() => lister.list('app in (')).toThrow();
  });

  it('reads one namespace through the namespace index, and gets by name', () => {
    expect(names(lister.namespace('a').list())).toEqual(['db-1', 'web-1']);
    expect(names(lister.namespace('a').list('app=web'))).toEqual(['web-1']);
    expect(lister.namespace('a').get('db-1')?.metadata.name).toBe('db-1');
    expect(lister.namespace('b').get('db-1')).toBeUndefined();
    expect(lister.namespace('zzz').list()).toEqual([]);
    expect(lister.get('cluster-thing')?.metadata.name).toBe('cluster-thing');
    expect(lister.get('web-1')).toBeUndefined();
  });
});
