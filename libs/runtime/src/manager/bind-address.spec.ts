import { parseBindAddress } from './bind-address';

describe('parseBindAddress', () => {
  it('reads controller-runtime’s forms, `:port` meaning every address', () => {
    expect(parseBindAddress(':8081')).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9443')).toEqual({ host: '::1', port: 9443 });
    expect(parseBindAddress('0')).toBeUndefined();
  });

  it('refuses what is not one, naming it', () => {
    for (const bad of ['8081', 'example.com:80', ':99999', '[::1]', '1.2.3.4:x', '']) {
      expect(() => parseBindAddress(bad)).toThrow(`${JSON.stringify(bad)} is not a bind address`);
    }
  });
});
