import { parseCidr } from '@svc/options';
import { NodeCidrAllocator } from './node-cidr-allocator';

describe('NodeCidrAllocator', () => {
  it('hands out the lowest free node CIDR of the cluster range, skipping taken ones, until the range is full', () => {
    const allocator = new NodeCidrAllocator(parseCidr('10.244.0.0/22'), 24);
    expect(allocator.next([])).toBe('10.244.0.0/24');
    expect(allocator.next(['10.244.0.0/24', '10.244.2.0/24'])).toBe('10.244.1.0/24');
    expect(allocator.next(['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'])).toBe('10.244.3.0/24');
    expect(allocator.next(['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24'])).toBeUndefined();
    // CIDRs outside the range or of another size take nothing from it.
    expect(allocator.next(['10.9.0.0/24', '10.244.0.0/25'])).toBe('10.244.0.0/24');
  });

  it('refuses IPv6 ranges and mask sizes that do not fit', () => {
    expect(() => new NodeCidrAllocator(parseCidr('fd00::/48'), 64)).toThrow(/IPv4/);
    expect(() => new NodeCidrAllocator(parseCidr('10.0.0.0/16'), 8)).toThrow(/does not fit/);
  });
});
