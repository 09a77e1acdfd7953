import { parseCidr } from '@svc/options';
import { bigIntToIp, ipToBigInt, IpRange } from './ip-range';

describe('service IP ranges', () => {
  it('converts addresses both ways, IPv6 compressed as Go prints it', () => {
    expect(ipToBigInt('10.0.0.1')).toBe(0x0a000001n);
    expect(bigIntToIp(0x0a000001n, 'IPv4')).toBe('10.0.0.1');
    expect(bigIntToIp(ipToBigInt('fd00:0:0:0:0:0:0:a')!, 'IPv6')).toBe('fd00::a');
    expect(bigIntToIp(ipToBigInt('2001:db8::1:0:0:1')!, 'IPv6')).toBe('2001:db8::1:0:0:1');
    expect(ipToBigInt('::ffff:10.0.0.1')).toBe(0xffff0a000001n);
    expect(ipToBigInt('not-an-ip')).toBeUndefined();
  });

  it('hands out all but the network and IPv4 broadcast addresses', () => {
    const v4 = new IpRange(parseCidr('10.0.0.0/24'));
    expect(v4.size).toBe(254);
    expect(v4.at(0)).toBe('10.0.0.1');
    expect(v4.at(253)).toBe('10.0.0.254');
    expect(v4.contains('10.0.0.0')).toBe(false);
    expect(v4.contains('10.0.0.255')).toBe(false);
    expect(v4.offsetOf('10.0.0.10')).toBe(9);
    expect(v4.contains('10.0.1.1')).toBe(false);
    expect(v4.contains('fd00::1')).toBe(false);
    const v6 = new IpRange(parseCidr('fd00::/112'));
    expect(v6.size).toBe(65535);
    expect(v6.at(0)).toBe('fd00::1');
    expect(v6.contains('fd00::ffff')).toBe(true);
  });

  it('refuses ranges Kubernetes refuses', () => {
    expect(() => new IpRange(parseCidr('10.0.0.0/8'))).toThrow(
      'specified --service-cluster-ip-range 10.0.0.0/8 is too large; for 32-bit addresses, the mask must be >= 12',
    );
    expect(() => new IpRange(parseCidr('fd00::/64'))).toThrow('the mask must be >= 108');
    expect(() => new IpRange(parseCidr('10.0.0.0/32'))).toThrow(/too small/);
  });
});
