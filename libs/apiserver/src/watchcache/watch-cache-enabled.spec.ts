import { isWatchCached } from './watch-cache-enabled';

describe('isWatchCached', () => {
  test('--watch-cache=false bypasses the cache for every resource', () => {
    expect(isWatchCached({ watchCache: false, watchCacheSizes: [] }, { group: '', resource: 'pods' })).toBe(false);
  });

  test('size 0 in --watch-cache-sizes bypasses it for that resource only; other sizes keep it', () => {
    const options = { watchCache: true, watchCacheSizes: ['pods#0', 'deployments.apps#0', 'secrets#500'] };
    expect(isWatchCached(options, { group: '', resource: 'pods' })).toBe(false);
    expect(isWatchCached(options, { group: 'apps', resource: 'deployments' })).toBe(false);
    expect(isWatchCached(options, { group: 'apps', resource: 'replicasets' })).toBe(true);
    expect(isWatchCached(options, { group: '', resource: 'secrets' })).toBe(true);
    expect(isWatchCached(options, { group: 'apps', resource: 'pods' })).toBe(true);
    expect(isWatchCached({ watchCache: true }, { group: '', resource: 'pods' })).toBe(true);
  });
});
