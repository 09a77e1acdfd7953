import type { ConfigMap, List } from '@svc/api';
import { ApiClient } from './support/api-client';
import { configMap, create, createNamespace, expectStatus, paths } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';

// A read without a resourceVersion is "most recent" (spec 1): it reflects every write acknowledged
// before it, whichever connection made the write. With ConsistentListFromCache (on by default) the
// server answers it from the watch cache once the cache has caught up with the store; these tests
// write on one connection and read at once on another, with the gate on and off.

const ROUNDS = 150;

describe.each([
  ['from the watch cache (ConsistentListFromCache on, the default)', []],
  ['from the store (ConsistentListFromCache=false)', ['--feature-gates=ConsistentListFromCache=false']],
])('reads without a resourceVersion %s', (_how, args) => {
  let server: ApiServerProcess;
  let writer: ApiClient;
  let reader: ApiClient;
  beforeAll(async () => {
    server = await startApiServerProcess({ args });
    writer = new ApiClient(server.url, server.ca);
    reader = new ApiClient(server.url, server.ca);
  }, 60_000);
  afterAll(async () => {
    writer?.close();
    reader?.close();
    await server?.stop();
  });

  it('show every write acknowledged on another connection, object by object and in lists', async () => {
    const ns = 'consistent';
    await createNamespace(writer, ns);
    let current = await create<ConfigMap>(writer, paths.configMaps(ns), configMap('c', { round: '0' }));
    for (let round = 1; round <= ROUNDS; round++) {
      const written = await writer.put<ConfigMap>(paths.configMap(ns, 'c'), { ...current, data: { round: String(round) } });
      expectStatus(written, 200);
      current = written.body;
      const got = await reader.get<ConfigMap>(paths.configMap(ns, 'c'));
      expectStatus(got, 200);
      expect(got.body.metadata?.resourceVersion).toBe(current.metadata?.resourceVersion);
      if (round % 10 === 0) {
        // A new object and the list right after it.
        await create<ConfigMap>(writer, paths.configMaps(ns), configMap(`n${round}`));
        const listed = await reader.get<List<ConfigMap>>(paths.configMaps(ns));
        expectStatus(listed, 200);
        const names = listed.body.items.map((item) => item.metadata?.name);
        expect(names).toContain(`n${round}`);
        expect(listed.body.items.find((item) => item.metadata?.name === 'c')?.data).toEqual({ round: String(round) });
      }
    }
    // A deletion is seen at once too.
    expectStatus(await writer.delete(paths.configMap(ns, 'c')), 200);
    expectStatus(await reader.get(paths.configMap(ns, 'c')), 404);
  });

  it('page lists: the first page shows the latest write, and later pages continue its snapshot', async () => {
    const ns = 'consistent-pages';
    await createNamespace(writer, ns);
    for (let i = 0; i < 7; i++) await create<ConfigMap>(writer, paths.configMaps(ns), configMap(`p${i}`));
    for (let round = 0; round < 10; round++) {
      await create<ConfigMap>(writer, paths.configMaps(ns), configMap(`q${round}`));
      const first = await reader.get<List<ConfigMap>>(`${paths.configMaps(ns)}?limit=3`);
      expectStatus(first, 200);
      const snapshot = first.body.metadata?.resourceVersion;
      // Writes between pages are not part of the list the first page began.
      expectStatus(await writer.delete(paths.configMap(ns, 'p5')), 200);
      await create<ConfigMap>(writer, paths.configMaps(ns), configMap(`p5`));
      const names = first.body.items.map((item) => item.metadata?.name);
      expect(first.body.metadata?.remainingItemCount).toBe(7 + round + 1 - 3);
      let token = first.body.metadata?.continue;
      while (token) {
        const page = await reader.get<List<ConfigMap>>(`${paths.configMaps(ns)}?limit=3&continue=${encodeURIComponent(token)}`);
        expectStatus(page, 200);
        expect(page.body.metadata?.resourceVersion).toBe(snapshot);
        names.push(...page.body.items.map((item) => item.metadata?.name));
        token = page.body.metadata?.continue;
      }
      const exact = await reader.get<List<ConfigMap>>(`${paths.configMaps(ns)}?resourceVersion=${snapshot}&resourceVersionMatch=Exact`);
      expectStatus(exact, 200);
      expect(names).toEqual(exact.body.items.map((item) => item.metadata?.name));
      expect(names).toContain(`q${round}`);
    }
  });
});
