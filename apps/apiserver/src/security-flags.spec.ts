import { parseApiServerOptions, type ApiServerFlags } from '@svc/options';
import { securityOptionsFromFlags } from './security-flags';

function flags(...argv: string[]): ApiServerFlags {
  const outcome = parseApiServerOptions(argv);
  if (outcome.action !== 'run') throw new Error(`expected run, got ${outcome.action}`);
  return outcome.options;
}

function refusal(...argv: string[]): string {
  try {
    securityOptionsFromFlags(flags(...argv));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
}

describe('securityOptionsFromFlags', () => {
  it('turns the --oidc-* flags into OIDC options', () => {
    const { authentication } = securityOptionsFromFlags(
      flags(
        '--oidc-issuer-url=https://idp.example',
        '--oidc-client-id=kube',
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=oidc:',
        '--oidc-required-claim=hd=example.com',
        '--oidc-signing-algs=RS256,ES256',
      ),
    );
    expect(authentication?.oidc).toEqual({
      issuerUrl: 'https://idp.example',
      clientId: 'kube',
      caFile: undefined,
      usernameClaim: 'sub',
      usernamePrefix: undefined,
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      requiredClaims: { hd: 'example.com' },
      signingAlgs: ['RS256', 'ES256'],
    });
  });

  it('turns the --requestheader-* flags into front-proxy options', () => {
    const { authentication } = securityOptionsFromFlags(
      flags('--requestheader-client-ca-file=/ca.crt', '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group'),
    );
    expect(authentication?.requestHeader).toEqual({
      clientCaFile: '/ca.crt',
      allowedNames: [],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeadersPrefix: [],
    });
  });

  it('refuses flags that would be ignored, naming them', () => {
    expect(refusal('--oidc-groups-claim=groups')).toBe('--oidc-groups-claim requires --oidc-issuer-url');
    expect(refusal('--oidc-required-claim=a=b')).toBe('--oidc-required-claim requires --oidc-issuer-url');
    expect(refusal('--requestheader-username-headers=X-Remote-User')).toBe('--requestheader-username-headers requires --requestheader-client-ca-file');
    expect(refusal('--requestheader-client-ca-file=/ca.crt')).toMatch(/^--requestheader-client-ca-file requires --requestheader-username-headers/);
  });

  it('turns --enable-bootstrap-token-auth on bootstrap token authentication', () => {
    expect(securityOptionsFromFlags(flags('--enable-bootstrap-token-auth')).authentication?.bootstrapTokens).toBe(true);
    expect(securityOptionsFromFlags(flags()).authentication?.bootstrapTokens).toBe(false);
  });
});
