import { parseControllerManagerOptions, type ControllerManagerOptions } from '@svc/options';
import { unsupportedFlagProblem } from './unsupported-flags';

function parse(argv: string[]): ControllerManagerOptions {
  const outcome = parseControllerManagerOptions(argv);
  if (outcome.action !== 'run') throw new Error('expected options');
  return outcome.options;
}

describe('unsupportedFlagProblem', () => {
  it('accepts no flags at all', () => {
    expect(unsupportedFlagProblem(parse([]))).toBeUndefined();
  });

  it('accepts an explicit default of a flag whose feature is missing', () => {
    expect(unsupportedFlagProblem(parse(['--concurrent-service-syncs=1', '--cidr-allocator-type=RangeAllocator']))).toBeUndefined();
  });

  it('refuses another value, naming the flag and the reason', () => {
    expect(unsupportedFlagProblem(parse(['--concurrent-service-syncs=3']))).toBe(
      '--concurrent-service-syncs is not supported: this controller manager runs no service (load balancer) controller',
    );
    // The autoscaler's flags are honoured now.
    expect(unsupportedFlagProblem(parse(['--horizontal-pod-autoscaler-sync-period=30s', '--horizontal-pod-autoscaler-tolerance=0.2']))).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--concurrent-service-syncs=2']))).toMatch(/^--concurrent-service-syncs is not supported/);
  });

  it('takes the certificate signing flags, which the csrsigning controller honours', () => {
    expect(
      unsupportedFlagProblem(parse(['--cluster-signing-nodeagent-client-cert-file=/x', '--cluster-signing-nodeagent-client-key-file=/y'])),
    ).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--cluster-signing-duration=24h']))).toBeUndefined();
  });

  it('refuses a flag without default once given, and takes --cert-dir', () => {
    expect(unsupportedFlagProblem(parse(['--cert-dir=/tmp/x']))).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--enable-leader-migration']))).toMatch(/^--enable-leader-migration is not supported/);
  });

  it('accepts --cloud-provider=external, under which no cloud loop runs in Kubernetes either', () => {
    expect(unsupportedFlagProblem(parse(['--cloud-provider=external']))).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--cloud-provider=gce']))).toMatch(/^--cloud-provider is not supported: .*cloud provider/);
  });

  it('takes the TLS version floor and cipher suites of the secure port', () => {
    expect(unsupportedFlagProblem(parse(['--tls-min-version=VersionTLS13', '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']))).toBeUndefined();
  });

  it('refuses serving and metrics flags the runtime does not honour', () => {
    expect(unsupportedFlagProblem(parse(['--tls-sni-cert-key=a.crt,a.key']))).toMatch(/^--tls-sni-cert-key is not supported by this process yet/);
    expect(unsupportedFlagProblem(parse(['--disabled-metrics=a_metric']))).toMatch(/^--disabled-metrics is not supported/);
  });
});
