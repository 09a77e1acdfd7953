import { DISABLED_BY_DEFAULT_CONTROLLERS, KNOWN_CONTROLLERS, enabledControllers } from './controllers';

describe('controllers', () => {
  it('spells the product controllers as the product does', () => {
    for (const name of ['deployment', 'replicaset', 'namespace', 'garbagecollector', 'endpoints']) {
      expect(KNOWN_CONTROLLERS).toContain(name);
    }
    expect(DISABLED_BY_DEFAULT_CONTROLLERS).toEqual(['bootstrapsigner', 'tokencleaner']);
  });

  it('resolves *, name and -name, with -name winning', () => {
    const defaults = enabledControllers({ controllers: ['*'] });
    expect(defaults.size).toBe(KNOWN_CONTROLLERS.length - DISABLED_BY_DEFAULT_CONTROLLERS.length);
    expect(enabledControllers({ controllers: [] }).size).toBe(0);
    expect([...enabledControllers({ controllers: ['endpoints', '-endpoints'] })]).toEqual([]);
    expect([...enabledControllers({ controllers: ['tokencleaner'] })]).toEqual(['tokencleaner']);
  });
});
