import { createHash } from 'node:crypto';
import { SPDY3_DICTIONARY } from './spdy-dictionary';

describe('SPDY/3 dictionary', () => {
  it('is the 1423 bytes of the protocol', () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    expect(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex')).toBe('51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  });
});
