import type { ConfigMap, Secret } from '@svc/api';
import { configEntries, configValue } from './config-objects';

describe('values of ConfigMaps and Secrets', () => {
  const configMap: ConfigMap = { data: { color: 'blue' }, binaryData: { logo: Buffer.from([0, 1, 2]).toString('base64') } };
  const secret: Secret = { data: { password: Buffer.from('s3cret').toString('base64') } };

  it('reads a ConfigMap key from data as text or from binaryData as bytes, and a Secret key from base64', () => {
    expect(configValue('configmaps', configMap, 'color')?.toString()).toBe('blue');
    expect([...(configValue('configmaps', configMap, 'logo') ?? [])]).toEqual([0, 1, 2]);
    expect(configValue('configmaps', configMap, 'missing')).toBeUndefined();
    expect(configValue('secrets', secret, 'password')?.toString()).toBe('s3cret');
    expect(configValue('secrets', secret, 'missing')).toBeUndefined();
  });

  it('lists every key with its bytes', () => {
    expect(configEntries('configmaps', configMap).map(([key, value]) => [key, value.length])).toEqual([
      ['color', 4],
      ['logo', 3],
    ]);
    expect(configEntries('secrets', secret).map(([key, value]) => [key, value.toString()])).toEqual([['password', 's3cret']]);
    expect(configEntries('secrets', {})).toEqual([]);
  });
});
