import type { ConfigMap, List, Pod, Status } from '@svc/api';
import { ApiClient, type ApiResponse } from './support/api-client';
import { compareRv, configMap, create, createNamespace, expectFailure, expectStatus, paths, pod, rvOf } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// The resourceVersion tables of the HTTP interface (get, list, paging, selectors), row by row,
// against the real svc-apiserver process.

type ConfigMapList = List<ConfigMap>;

let server: ApiServerProcess;
let client: ApiClient;

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

const names = (list: ConfigMapList | List<Pod>) => list.items.map((i) => i.metadata?.name);
const dataOf = (list: ConfigMapList, name: string) => list.items.find((i) => i.metadata?.name === name)?.data;
const causeFields = (status: Status) => (status.details?.causes ?? []).map((c) => c.field);

async function listConfigMaps(ns: string, query: Record<string, string | number | undefined>): Promise<ApiResponse<ConfigMapList>> {
  return client.get<ConfigMapList>(paths.configMaps(ns), query);
}

/** Well past the store's current revision, so that no write of this run reaches it. */
async function tooLargeRv(): Promise<string> {
  const list = await client.get<List<unknown>>(paths.namespaces());
  expectStatus(list, 200);
  return (BigInt(rvOf(list.body)) + 1_000_000n).toString();
}

describe('get', () => {
  const ns = 'rv-get';
  let first: ConfigMap;
  let second: ConfigMap;

  beforeAll(async () => {
    await createNamespace(client, ns);
    first = await create<ConfigMap>(client, paths.configMaps(ns), configMap('subject', { v: '1' }));
    const updated = await client.put<ConfigMap>(paths.configMap(ns, 'subject'), { ...first, data: { v: '2' } });
    expectStatus(updated, 200);
    second = updated.body;
    expect(compareRv(rvOf(second), rvOf(first))).toBeGreaterThan(0);
  });

  it('resourceVersion unset: Most Recent, the state after the last write', async () => {
    const res = await client.get<ConfigMap>(paths.configMap(ns, 'subject'));
    expectStatus(res, 200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { v: '2' } });
    expect(rvOf(res.body)).toBe(rvOf(second));
  });

  it('resourceVersion=0: Any, a version the server has at hand', async () => {
    const res = await client.get<ConfigMap>(paths.configMap(ns, 'subject'), { resourceVersion: '0' });
    expectStatus(res, 200);
    expect(res.body.metadata?.name).toBe('subject');
    expect([rvOf(first), rvOf(second)]).toContain(rvOf(res.body));
  });

  it('resourceVersion=N: Not older than N, so an older N still gets a state at least that new', async () => {
    const older = await client.get<ConfigMap>(paths.configMap(ns, 'subject'), { resourceVersion: rvOf(first) });
    expectStatus(older, 200);
    expect(compareRv(rvOf(older.body), rvOf(first))).toBeGreaterThanOrEqual(0);
    const exact = await client.get<ConfigMap>(paths.configMap(ns, 'subject'), { resourceVersion: rvOf(second) });
    expectStatus(exact, 200);
    expect(rvOf(exact.body)).toBe(rvOf(second));
    expect(exact.body.data).toEqual({ v: '2' });
  });

  it('answers 404 NotFound with the name and resource for a missing object, at any resourceVersion', async () => {
    for (const resourceVersion of [undefined, '0', rvOf(second)]) {
      const res = await client.get(paths.configMap(ns, 'missing'), { resourceVersion });
      const status = expectFailure(res, 404, 'NotFound');
      expect(status.message).toBe('configmaps "missing" not found');
      expect(status.details).toMatchObject({ name: 'missing', kind: 'configmaps' });
    }
  });

  it('answers 400 for a resourceVersion that is not a version', async () => {
    expectFailure(await client.get(paths.configMap(ns, 'subject'), { resourceVersion: 'not-a-version' }), 400, 'BadRequest');
  });
});

describe('list', () => {
  const ns = 'rv-list';
  let rvN: string; // after c1..c3 exist, before c4 and the update of c1
  let rvLatest: string;

  beforeAll(async () => {
    await createNamespace(client, ns);
    for (const name of ['c1', 'c2', 'c3']) await create(client, paths.configMaps(ns), configMap(name, { v: 'original' }));
    rvN = rvOf((await client.get<ConfigMap>(paths.configMap(ns, 'c3'))).body);
    await create(client, paths.configMaps(ns), configMap('c4', { v: 'original' }));
    const patched = await client.patch<ConfigMap>(paths.configMap(ns, 'c1'), 'application/merge-patch+json', { data: { v: 'changed' } });
    expectStatus(patched, 200);
    rvLatest = rvOf(patched.body);
  });

  describe('resourceVersionMatch unset, limit unset', () => {
    it('resourceVersion unset: Most Recent, every write so far is visible', async () => {
      const res = await listConfigMaps(ns, {});
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
      expect(names(res.body)).toEqual(['c1', 'c2', 'c3', 'c4']);
      expect(dataOf(res.body, 'c1')).toEqual({ v: 'changed' });
      expect(compareRv(rvOf(res.body), rvLatest)).toBeGreaterThanOrEqual(0);
      expect(res.body.metadata.continue ?? '').toBe('');
      expect(res.body.metadata.remainingItemCount).toBeUndefined();
      // Item versions record each item's last change, not the list's.
      const c2 = res.body.items.find((i) => i.metadata?.name === 'c2');
      expect(compareRv(rvOf(c2), rvN)).toBeLessThan(0);
    });

    it('resourceVersion=0: Any', async () => {
      const res = await listConfigMaps(ns, { resourceVersion: '0' });
      expectStatus(res, 200);
      expect(res.body.kind).toBe('ConfigMapList');
      expect(rvOf(res.body)).toMatch(/^\d+$/);
    });

    it('resourceVersion=N: Not older than N', async () => {
      const res = await listConfigMaps(ns, { resourceVersion: rvN });
      expectStatus(res, 200);
      expect(compareRv(rvOf(res.body), rvN)).toBeGreaterThanOrEqual(0);
      expect(names(res.body)).toEqual(expect.arrayContaining(['c1', 'c2', 'c3']));
    });
  });

  describe('resourceVersionMatch unset, limit=n without continue', () => {
    it('resourceVersion unset: Most Recent, paged', async () => {
      const res = await listConfigMaps(ns, { limit: 2 });
      expectStatus(res, 200);
      expect(names(res.body)).toEqual(['c1', 'c2']);
      expect(compareRv(rvOf(res.body), rvLatest)).toBeGreaterThanOrEqual(0);
      expect(res.body.metadata.continue).toEqual(expect.any(String));
      expect(res.body.metadata.continue).not.toBe('');
      expect(res.body.metadata.remainingItemCount).toBe(2);
    });

    it('resourceVersion=0: Any', async () => {
      const res = await listConfigMaps(ns, { resourceVersion: '0', limit: 2 });
      expectStatus(res, 200);
      // A server may serve Any from its cache in one piece; when it pages, it honours the limit.
      if (res.body.metadata.continue) expect(res.body.items).toHaveLength(2);
      else expect(names(res.body)).toEqual(['c1', 'c2', 'c3', 'c4']);
    });

    it('resourceVersion=N: Exact, the collection exactly as it was at N, across every page', async () => {
      const first = await listConfigMaps(ns, { resourceVersion: rvN, limit: 2 });
      expectStatus(first, 200);
      expect(rvOf(first.body)).toBe(rvN);
      expect(names(first.body)).toEqual(['c1', 'c2']);
      expect(dataOf(first.body, 'c1')).toEqual({ v: 'original' });
      expect(first.body.metadata.remainingItemCount).toBe(1);
      const next = await listConfigMaps(ns, { limit: 2, continue: first.body.metadata.continue });
      expectStatus(next, 200);
      expect(rvOf(next.body)).toBe(rvN);
      expect(names(next.body)).toEqual(['c3']);
      expect(next.body.metadata.continue ?? '').toBe('');
      expect(next.body.metadata.remainingItemCount).toBeUndefined();
    });
  });

  describe('resourceVersionMatch unset, limit=n with continue', () => {
    let token: string;
    let firstPageRv: string;

    beforeAll(async () => {
      const res = await listConfigMaps(ns, { limit: 1 });
      expectStatus(res, 200);
      token = res.body.metadata.continue ?? '';
      firstPageRv = rvOf(res.body);
      expect(token).not.toBe('');
    });

    it('resourceVersion unset: Continue Token, Exact', async () => {
      const res = await listConfigMaps(ns, { limit: 1, continue: token });
      expectStatus(res, 200);
      expect(rvOf(res.body)).toBe(firstPageRv);
      expect(names(res.body)).toEqual(['c2']);
    });

    it('resourceVersion=0: Invalid but treated as Continue Token, Exact', async () => {
      const res = await listConfigMaps(ns, { limit: 1, continue: token, resourceVersion: '0' });
      expectStatus(res, 200);
      expect(rvOf(res.body)).toBe(firstPageRv);
      expect(names(res.body)).toEqual(['c2']);
    });

    it('resourceVersion=N: Invalid, HTTP 400', async () => {
      const status = expectFailure(await listConfigMaps(ns, { limit: 1, continue: token, resourceVersion: rvN }), 400, 'BadRequest');
      expect(status.message).toBe('specifying resource version is not allowed when using continue');
    });

    it('a continue token that is not one is 400', async () => {
      expectFailure(await listConfigMaps(ns, { limit: 1, continue: 'not-a-token' }), 400, 'BadRequest');
    });
  });

  describe('resourceVersionMatch=Exact', () => {
    it.each([
      ['limit unset', undefined],
      ['limit=n', 2],
    ])('resourceVersion unset, %s: Invalid (422 on ListOptions)', async (_label, limit) => {
      const status = expectFailure(await listConfigMaps(ns, { resourceVersionMatch: 'Exact', limit }), 422, 'Invalid');
      expect(causeFields(status)).toContain('resourceVersionMatch');
      expect(status.details?.kind).toBe('ListOptions');
    });

    it.each([
      ['limit unset', undefined],
      ['limit=n', 2],
    ])('resourceVersion=0, %s: Invalid (422)', async (_label, limit) => {
      const status = expectFailure(await listConfigMaps(ns, { resourceVersionMatch: 'Exact', resourceVersion: '0', limit }), 422, 'Invalid');
      expect(causeFields(status)).toContain('resourceVersionMatch');
    });

    it('resourceVersion=N, limit unset: Exact, the collection as it was at N', async () => {
      const res = await listConfigMaps(ns, { resourceVersionMatch: 'Exact', resourceVersion: rvN });
      expectStatus(res, 200);
      expect(rvOf(res.body)).toBe(rvN);
      expect(names(res.body)).toEqual(['c1', 'c2', 'c3']);
      expect(dataOf(res.body, 'c1')).toEqual({ v: 'original' });
    });

    it('resourceVersion=N, limit=n: Exact, paged', async () => {
      const res = await listConfigMaps(ns, { resourceVersionMatch: 'Exact', resourceVersion: rvN, limit: 2 });
      expectStatus(res, 200);
      expect(rvOf(res.body)).toBe(rvN);
      expect(names(res.body)).toEqual(['c1', 'c2']);
      const next = await listConfigMaps(ns, { limit: 2, continue: res.body.metadata.continue });
      expectStatus(next, 200);
      expect(rvOf(next.body)).toBe(rvN);
      expect(names(next.body)).toEqual(['c3']);
    });
  });

  describe('resourceVersionMatch=NotOlderThan', () => {
    it.each([
      ['limit unset', undefined],
      ['limit=n', 2],
    ])('resourceVersion unset, %s: Invalid (422)', async (_label, limit) => {
      const status = expectFailure(await listConfigMaps(ns, { resourceVersionMatch: 'NotOlderThan', limit }), 422, 'Invalid');
      expect(causeFields(status)).toContain('resourceVersionMatch');
    });

    it.each([
      ['limit unset', undefined],
      ['limit=n', 2],
    ])('resourceVersion=0, %s: Any', async (_label, limit) => {
      const res = await listConfigMaps(ns, { resourceVersionMatch: 'NotOlderThan', resourceVersion: '0', limit });
      expectStatus(res, 200);
      expect(res.body.kind).toBe('ConfigMapList');
    });

    it('resourceVersion=N, limit unset: Not older than N', async () => {
      const res = await listConfigMaps(ns, { resourceVersionMatch: 'NotOlderThan', resourceVersion: rvN });
      expectStatus(res, 200);
      expect(compareRv(rvOf(res.body), rvN)).toBeGreaterThanOrEqual(0);
      expect(names(res.body)).toEqual(expect.arrayContaining(['c1', 'c2', 'c3']));
    });

    it('resourceVersion=N, limit=n: Not older than N, paged', async () => {
      const res = await listConfigMaps(ns, { resourceVersionMatch: 'NotOlderThan', resourceVersion: rvN, limit: 2 });
      expectStatus(res, 200);
      expect(compareRv(rvOf(res.body), rvN)).toBeGreaterThanOrEqual(0);
      expect(names(res.body)).toEqual(['c1', 'c2']);
      expect(res.body.metadata.continue).toBeTruthy();
    });
  });

  it('rejects an unknown resourceVersionMatch and a match beside a continue token with 422', async () => {
    const unknown = expectFailure(await listConfigMaps(ns, { resourceVersionMatch: 'Newest', resourceVersion: rvN }), 422, 'Invalid');
    expect(unknown.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'resourceVersionMatch', reason: 'FieldValueNotSupported' })]),
    );
    const first = await listConfigMaps(ns, { limit: 1 });
    const withContinue = await listConfigMaps(ns, {
      limit: 1,
      continue: first.body.metadata.continue,
      resourceVersion: rvN,
      resourceVersionMatch: 'Exact',
    });
    expectFailure(withContinue, 422, 'Invalid');
  });

  it('answers 504 "Too large resource version" for a version the store has not reached, on get and list', async () => {
    const future = await tooLargeRv();
    const started = Date.now();
    const answers = await Promise.all([
      client.get(paths.configMap(ns, 'c1'), { resourceVersion: future }),
      listConfigMaps(ns, { resourceVersion: future }),
      listConfigMaps(ns, { resourceVersion: future, resourceVersionMatch: 'NotOlderThan' }),
      listConfigMaps(ns, { resourceVersion: future, resourceVersionMatch: 'Exact' }),
      listConfigMaps(ns, { resourceVersion: future, limit: 2 }),
    ]);
    for (const res of answers) {
      const status = expectFailure(res, 504, 'Timeout');
      expect(status.message).toContain('Too large resource version');
    }
    // "Waits briefly": bounded well below the request timeout.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe('paged lists', () => {
  const ns = 'rv-paging';

  beforeAll(async () => {
    await createNamespace(client, ns);
    for (let i = 0; i < 5; i++) await create(client, paths.configMaps(ns), configMap(`p${i}`, { v: 'original' }, { set: 'paged' }));
  });

  it('pages one snapshot while writes go on, with remainingItemCount and a constant resourceVersion', async () => {
    const first = await listConfigMaps(ns, { limit: 2 });
    expectStatus(first, 200);
    const snapshot = rvOf(first.body);
    expect(names(first.body)).toEqual(['p0', 'p1']);
    expect(first.body.metadata.remainingItemCount).toBe(3);

    // Changes after the first page must not show in the later pages.
    await create(client, paths.configMaps(ns), configMap('p5', { v: 'new' }));
    expectStatus(await client.patch(paths.configMap(ns, 'p4'), 'application/merge-patch+json', { data: { v: 'changed' } }), 200);
    expectStatus(await client.delete(paths.configMap(ns, 'p2')), 200);

    const second = await listConfigMaps(ns, { limit: 2, continue: first.body.metadata.continue });
    expectStatus(second, 200);
    expect(rvOf(second.body)).toBe(snapshot);
    expect(names(second.body)).toEqual(['p2', 'p3']);
    expect(second.body.metadata.remainingItemCount).toBe(1);

    const third = await listConfigMaps(ns, { limit: 2, continue: second.body.metadata.continue });
    expectStatus(third, 200);
    expect(rvOf(third.body)).toBe(snapshot);
    expect(names(third.body)).toEqual(['p4']);
    expect(dataOf(third.body, 'p4')).toEqual({ v: 'original' });
    expect(third.body.metadata.continue ?? '').toBe('');
    expect(third.body.metadata.remainingItemCount).toBeUndefined();

    // A new list sees the changes.
    const fresh = await listConfigMaps(ns, {});
    expect(names(fresh.body)).toEqual(['p0', 'p1', 'p3', 'p4', 'p5']);
    expect(compareRv(rvOf(fresh.body), snapshot)).toBeGreaterThan(0);
  });

  it('omits remainingItemCount when a selector is used', async () => {
    const res = await listConfigMaps(ns, { limit: 1, labelSelector: 'set=paged' });
    expectStatus(res, 200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.metadata.continue).toBeTruthy();
    expect(res.body.metadata.remainingItemCount).toBeUndefined();
  });

  it('pages a list across all namespaces', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let rv: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await client.get<ConfigMapList>('/api/v1/configmaps', { limit: 3, continue: token });
      expectStatus(res, 200);
      rv ??= rvOf(res.body);
      expect(rvOf(res.body)).toBe(rv);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`));
      token = res.body.metadata.continue;
      if (!token) break;
    }
    expect(token ?? '').toBe('');
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['rv-paging/p0', 'rv-list/c1']));
  });
});

describe('selectors on lists', () => {
  const ns = 'rv-selectors';

  beforeAll(async () => {
    await createNamespace(client, ns);
    await create(client, paths.configMaps(ns), configMap('web-a', {}, { tier: 'web' }));
    await create(client, paths.configMaps(ns), configMap('web-prod', {}, { tier: 'web', env: 'prod' }));
    await create(client, paths.configMaps(ns), configMap('db', {}, { tier: 'db' }));
    await create(client, paths.configMaps(ns), configMap('plain'));
    await create(client, paths.pods(ns), pod('on-a', { nodeName: 'node-a' }));
    await create(client, paths.pods(ns), pod('on-b', { nodeName: 'node-b' }));
    await create(client, paths.pods(ns), pod('unscheduled'));
  });

  it.each([
    ['tier=web', ['web-a', 'web-prod']],
    ['tier==web', ['web-a', 'web-prod']],
    ['tier!=web', ['db', 'plain']],
    ['tier in (web,db)', ['db', 'web-a', 'web-prod']],
    ['tier notin (web)', ['db', 'plain']],
    ['env', ['web-prod']],
    ['!tier', ['plain']],
    ['tier=web,env=prod', ['web-prod']],
  ])('labelSelector %s', async (selector, expected) => {
    const res = await listConfigMaps(ns, { labelSelector: selector });
    expectStatus(res, 200);
    expect(names(res.body)).toEqual(expected);
  });

  it('answers 400 for a label selector that does not parse', async () => {
    expectFailure(await listConfigMaps(ns, { labelSelector: 'tier in (web' }), 400, 'BadRequest');
  });

  it('fieldSelector metadata.name and metadata.namespace', async () => {
    expect(names((await listConfigMaps(ns, { fieldSelector: 'metadata.name=db' })).body)).toEqual(['db']);
    expect(names((await listConfigMaps(ns, { fieldSelector: 'metadata.name!=db' })).body)).toEqual(['plain', 'web-a', 'web-prod']);
    const across = await client.get<ConfigMapList>('/api/v1/configmaps', { fieldSelector: `metadata.namespace=${ns}` });
    expectStatus(across, 200);
    expect(names(across.body)).toEqual(['db', 'plain', 'web-a', 'web-prod']);
    const both = await listConfigMaps(ns, { fieldSelector: 'metadata.name=web-prod', labelSelector: 'tier=web' });
    expect(names(both.body)).toEqual(['web-prod']);
  });

  it('fieldSelector spec.nodeName on pods, including unscheduled ones', async () => {
    const onA = await client.get<List<Pod>>(paths.pods(ns), { fieldSelector: 'spec.nodeName=node-a' });
    expectStatus(onA, 200);
    expect(names(onA.body)).toEqual(['on-a']);
    const unscheduled = await client.get<List<Pod>>(paths.pods(ns), { fieldSelector: 'spec.nodeName=' });
    expect(names(unscheduled.body)).toEqual(['unscheduled']);
    const all = await client.get<List<Pod>>('/api/v1/pods', { fieldSelector: 'spec.nodeName=node-b' });
    expect(names(all.body)).toEqual(['on-b']);
  });

  it('answers 400 for a field the kind does not support as a selector', async () => {
    const pods = expectFailure(await client.get(paths.pods(ns), { fieldSelector: 'spec.bogus=x' }), 400, 'BadRequest');
    expect(pods.message).toContain('field label not supported: spec.bogus');
    const cms = expectFailure(await listConfigMaps(ns, { fieldSelector: 'data.key=x' }), 400, 'BadRequest');
    expect(cms.message).toContain('field label not supported: data.key');
  });
});
