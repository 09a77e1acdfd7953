import { ADMISSION_PLUGIN_ORDER, DEFAULT_ADMISSION_PLUGINS, OPTIONAL_ADMISSION_PLUGINS, enabledAdmissionPlugins } from './admission-plugins';

describe('admission plugins', () => {
  it('orders every accepted plugin exactly once', () => {
    expect([...ADMISSION_PLUGIN_ORDER].sort()).toEqual([...DEFAULT_ADMISSION_PLUGINS, ...OPTIONAL_ADMISSION_PLUGINS].sort());
  });

  it('runs the defaults plus enabled minus disabled, in run order', () => {
    expect(enabledAdmissionPlugins({})).toHaveLength(DEFAULT_ADMISSION_PLUGINS.length);
    const plugins = enabledAdmissionPlugins({ enableAdmissionPlugins: ['AlwaysDeny', 'NodeRestriction'], disableAdmissionPlugins: ['ResourceQuota'] });
    expect(plugins).toContain('NodeRestriction');
    expect(plugins).not.toContain('ResourceQuota');
    expect(plugins[plugins.length - 1]).toBe('AlwaysDeny');
    expect(plugins.indexOf('MutatingAdmissionWebhook')).toBeLessThan(plugins.indexOf('ValidatingAdmissionWebhook'));
  });
});
