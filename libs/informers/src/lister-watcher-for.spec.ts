import type { ResourceClient } from '@svc/client';
import { listerWatcherFor, type ListWatchClient } from './lister-watcher-for';
import type { TestPod } from './testing/objects';

describe('listerWatcherFor', () => {
  it('accepts the REST client of @svc/client', () => {
    const fits = (client: ResourceClient<TestPod>): ListWatchClient<TestPod> => client;
    expect(fits).toBeInstanceOf(Function);
  });

  it('binds namespace and selectors into every list and watch, and passes the reflector options through', async () => {
    const calls: unknown[] = [];
    const stream = { stop: () => undefined, async *[Symbol.asyncIterator]() {} };
    const client: ListWatchClient<TestPod> = {
      list: async (params) => {
        calls.push(['list', params]);
        return { items: [], metadata: { resourceVersion: '5' } };
      },
      watch: async (params) => {
        calls.push(['watch', params]);
        return stream;
      },
    };
    const lw = listerWatcherFor(client, { namespace: 'ns', labelSelector: 'app=web', fieldSelector: '' });
    const signal = new AbortController().signal;
    await lw.list({ limit: 10, continue: 'tok', signal });
    await expect(lw.watch({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 400, signal })).resolves.toBe(stream);
    expect(calls).toEqual([
      [
        'list',
        {
          namespace: 'ns',
          labelSelector: 'app=web',
          fieldSelector: undefined,
          limit: 10,
          continue: 'tok',
          resourceVersion: undefined,
          resourceVersionMatch: undefined,
          signal,
        },
      ],
      [
        'watch',
        { namespace: 'ns', labelSelector: 'app=web', fieldSelector: undefined, resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 400, signal },
      ],
    ]);
  });
});
