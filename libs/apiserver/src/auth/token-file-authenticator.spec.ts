import { parseTokenFile, TokenFileAuthenticator } from './token-file-authenticator';
import { parseDistinguishedName } from '@svc/machinery';

describe('the static token file', () => {
  it("reads Kubernetes' CSV: token, user, uid and quoted groups", () => {
    const entries = parseTokenFile('t1,alice,u1,"a,b"\r\nt2,bob,u2\n\n');
    expect(entries).toEqual([
      { token: 't1', user: { name: 'alice', uid: 'u1', groups: ['a', 'b'] } },
      { token: 't2', user: { name: 'bob', uid: 'u2', groups: [] } },
    ]);
    const authenticator = new TokenFileAuthenticator(entries);
    expect(authenticator.authenticateToken('t1')).toEqual({ user: { name: 'alice', uid: 'u1', groups: ['a', 'b'] } });
    expect(authenticator.authenticateToken('t3')).toBeUndefined();
  });

  it('refuses lines it cannot read, naming the line', () => {
    expect(() => parseTokenFile('t1,alice\n')).toThrow('line 1: expected at least 3 fields');
    expect(() => parseTokenFile('t1,a,1\nt1,b,2\n')).toThrow('line 2: duplicate token');
    expect(() => parseTokenFile('t1,a,1,"open\n')).toThrow('unterminated quoted field');
  });
});

describe('certificate subjects', () => {
  it('reads the CommonName and every Organization', () => {
    expect(parseDistinguishedName('CN=carol\nO=team-a\nO=team\\, b')).toEqual({ CN: ['carol'], O: ['team-a', 'team, b'] });
  });
});
