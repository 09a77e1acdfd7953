import { upstreamsFrom } from './upstream';

describe('upstreamsFrom', () => {
  const conf = [
    '# comment',
    'search example.org',
    'nameserver 192.0.2.1',
    'nameserver 127.0.0.53',
    'nameserver fe80::1%eth0',
    'nameserver 192.0.2.4',
    'nameserver 192.0.2.5',
    'nameserver bogus',
  ].join('\n');

  it('reads at most three nameservers, as the C resolver does', () => {
    expect(upstreamsFrom(conf, { host: '127.0.0.1', port: 5353 })).toEqual(['192.0.2.1', '127.0.0.53', 'fe80::1']);
  });

  it('leaves out the server itself when it serves port 53 on that address or on every address', () => {
    expect(upstreamsFrom('nameserver 127.0.0.1\nnameserver 192.0.2.1', { host: '127.0.0.1', port: 53 })).toEqual(['192.0.2.1']);
    expect(upstreamsFrom('nameserver 127.0.0.1\nnameserver 192.0.2.1', { host: '0.0.0.0', port: 53 })).toEqual(['192.0.2.1']);
    expect(upstreamsFrom('nameserver 127.0.0.53', { host: '127.0.0.1', port: 53 })).toEqual(['127.0.0.53']);
  });
});
