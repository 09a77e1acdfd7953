import 'reflect-metadata';
import type { ControllerRevision, StatefulSet } from '@svc/api';
import { LabelQuery } from '@svc/machinery';
import type { CacheReader } from '@svc/runtime';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { ControllerHistory } from './controller-history';
import { CONTROLLER_REVISION_HASH_LABEL, controllerRevisionName, hashControllerRevision, newControllerRevision } from './revision-hash';

let env: TestEnvironment;
let history: ControllerHistory;
let nsCount = 0;
const KIND = { apiVersion: 'apps/v1', kind: 'StatefulSet' };

beforeAll(async () => {
  env = await startTestEnvironment();
  history = new ControllerHistory(env.client);
});

afterAll(async () => {
  await env?.stop();
});

async function owner(): Promise<StatefulSet> {
  const namespace = `history-${++nsCount}`;
  await env.client.namespaces.create({ metadata: { name: namespace } });
  return env.client.statefulSets.create({
    metadata: { name: 'web', namespace },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });
}

/** A cache reader answering lists from the server, enough for `list`. */
function serverCache(items: ControllerRevision[]): CacheReader {
  return {
    list: (_ref: unknown, options?: { namespace?: string; labelSelector?: unknown }) =>
      items.filter((r) => (options?.labelSelector as LabelQuery).matches(r.metadata?.labels)),
  } as unknown as CacheReader;
}

describe('ControllerHistory', () => {
  it('creates a revision under <owner>-<hash>, and answers an equal one already there', async () => {
    const set = await owner();
    const data = { spec: { template: { $patch: 'replace', metadata: { labels: { app: 'web' } } } } };
    const made = await history.create(set, newControllerRevision(set, KIND, { app: 'web' }, data, 1, 0), 0);
    expect(made.collisionCount).toBe(0);
    expect(made.revision.metadata?.name).toBe(controllerRevisionName('web', hashControllerRevision(data, 0)));
    expect(made.revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]).toBe(hashControllerRevision(data, 0));
    const again = await history.create(set, newControllerRevision(set, KIND, { app: 'web' }, data, 2, 0), 0);
    expect(again).toEqual({ revision: made.revision, collisionCount: 0 });
  });

  it('counts a collision and tries the next name when the name is taken by other data', async () => {
    const set = await owner();
    const data = { spec: { template: { $patch: 'replace', metadata: { labels: { app: 'web', v: '2' } } } } };
    const namespace = set.metadata!.namespace!;
    // Another revision already holds the name this data's hash gives.
    await env.client.controllerRevisions.create({
      metadata: { name: controllerRevisionName('web', hashControllerRevision(data, 0)), namespace },
      data: { other: true },
      revision: 1,
    });
    const made = await history.create(set, newControllerRevision(set, KIND, {}, data, 2, 0), 0);
    expect(made.collisionCount).toBe(1);
    expect(made.revision.metadata?.name).toBe(controllerRevisionName('web', hashControllerRevision(data, 1)));
    expect(made.revision.data).toEqual(data);
  });

  it('lists the revisions the owner controls or no one does, renumbers, adopts, releases and deletes', async () => {
    const set = await owner();
    const namespace = set.metadata!.namespace!;
    const mine = (await history.create(set, newControllerRevision(set, KIND, { app: 'web' }, { v: 1 }, 1, 0), 0)).revision;
    const orphan = await env.client.controllerRevisions.create({
      metadata: { name: 'web-orphan', namespace, labels: { app: 'web' } },
      data: { v: 2 },
      revision: 2,
    });
    const foreign = await env.client.controllerRevisions.create({
      metadata: { name: 'web-foreign', namespace, labels: { app: 'web' }, ownerReferences: [{ ...KIND, name: 'other', uid: 'other-uid', controller: true }] },
      data: { v: 3 },
      revision: 3,
    });
    const unselected = await env.client.controllerRevisions.create({ metadata: { name: 'db-1', namespace, labels: { app: 'db' } }, data: {}, revision: 1 });
    const listed = history.list(serverCache([mine, orphan, foreign, unselected]), set, LabelQuery.fromLabelSelector(set.spec.selector));
    expect(listed.map((r) => r.metadata?.name).sort()).toEqual([mine.metadata?.name, 'web-orphan'].sort());

    const renumbered = await history.renumber(mine, 7);
    expect(renumbered.revision).toBe(7);
    // A stale copy conflicts; the renumbering reads the current one and retries.
    expect((await history.renumber(mine, 8)).revision).toBe(8);

    const adopted = await history.adopt(set, KIND, orphan);
    expect(adopted.metadata?.ownerReferences).toEqual([expect.objectContaining({ uid: set.metadata?.uid, controller: true })]);
    await expect(history.adopt(set, KIND, foreign)).rejects.toThrow(/owned by StatefulSet other/);
    await history.release(set, adopted);
    expect((await env.client.controllerRevisions.get('web-orphan', { namespace })).metadata?.ownerReferences ?? []).toEqual([]);

    await history.delete(renumbered);
    await history.delete(renumbered);
    await expect(env.client.controllerRevisions.get(mine.metadata!.name!, { namespace })).rejects.toThrow();
  });
});
