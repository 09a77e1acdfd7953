import { parseCidr, parseDualStackCidrs } from './cidr';
import { cidrs } from './cidrs';

describe('CIDRs', () => {
  it('parses IPv4 and IPv6 CIDRs', () => {
    expect(parseCidr('10.0.0.0/8')).toMatchObject({ family: 'IPv4', prefixLength: 8, address: '10.0.0.0' });
    expect(parseCidr('fd00::/108')).toMatchObject({ family: 'IPv6', prefixLength: 108 });
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '10.0.0/8', 'fd00::/129', 'x/8', '10.0.0.0/-1', '10.0.0.0/'])('rejects %j', (text) => {
    expect(() => parseCidr(text)).toThrow(`invalid CIDR address: ${text}`);
  });

  it('reads a cidrs list, appending repeats', () => {
    const first = cidrs.parse('130.211.0.0/22,35.191.0.0/16', undefined);
    expect(first).toEqual(['130.211.0.0/22', '35.191.0.0/16']);
    expect(cidrs.parse('fd00::/64', first)).toEqual(['130.211.0.0/22', '35.191.0.0/16', 'fd00::/64']);
    expect(() => cidrs.parse('130.211.0.0/22,nope', undefined)).toThrow('invalid CIDR address: nope');
    expect(cidrs.format(first)).toBe('130.211.0.0/22,35.191.0.0/16');
  });

  it('accepts at most one CIDR per family for dual stack', () => {
    expect(parseDualStackCidrs('10.0.0.0/16,fd00::/108')).toHaveLength(2);
    expect(() => parseDualStackCidrs('10.0.0.0/16,10.1.0.0/16')).toThrow('one IPv4 and one IPv6');
    expect(() => parseDualStackCidrs('10.0.0.0/16,fd00::/108,10.1.0.0/16')).toThrow('at most two CIDRs');
  });
});
