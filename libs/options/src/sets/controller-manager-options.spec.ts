import { FlagError } from '../flag-set/flag-error';
import type { FlagDef } from '../flag-set/flag';
import { CONTROLLER_MANAGER_FLAGS, type ControllerManagerOptions } from './controller-manager-flags';
import { parseControllerManagerOptions } from './controller-manager-options';
import { enabledControllers } from './controllers';

function run(...argv: string[]): ControllerManagerOptions {
  const outcome = parseControllerManagerOptions(argv);
  if (outcome.action !== 'run') throw new Error(`expected run, got ${outcome.action}`);
  return outcome.options;
}

function failure(...argv: string[]): string {
  try {
    parseControllerManagerOptions(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    const message = (error as FlagError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to fail`);
}

const allFlags: FlagDef[] = CONTROLLER_MANAGER_FLAGS.groups.flatMap((g) => [...g.flags]);
const SYNC_FLAGS = allFlags.filter((f) => /^(mirroring-)?concurrent-.*-syncs$/.test(f.name)).map((f) => f.name);

describe('controller manager options', () => {
  it('defaults match the specification', () => {
    expect(run()).toMatchObject({
      securePort: 10257,
      bindAddress: '0.0.0.0',
      controllers: ['*'],
      leaderElect: true,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2_000,
      leaderElectResourceLock: 'leases',
      leaderElectResourceName: 'svc-controller-manager',
      leaderElectResourceNamespace: 'svc-system',
      minResyncPeriod: 43_200_000,
      svcApiQps: 20,
      svcApiBurst: 30,
      svcApiContentType: 'application/vnd.svc.protobuf',
      concurrentDeploymentSyncs: 5,
      concurrentCronJobSyncs: 5,
      concurrentReplicasetSyncs: 5,
      concurrentNamespaceSyncs: 10,
      concurrentGcSyncs: 20,
      concurrentEndpointSyncs: 5,
      concurrentServiceSyncs: 1,
      clusterName: 'svc',
      clusterSigningDuration: 31_536_000_000,
      attachDetachReconcileSyncPeriod: 60_000,
      nodeCidrMaskSizeIpv4: 24,
      nodeCidrMaskSizeIpv6: 64,
      terminatedPodGcThreshold: 12500,
      authorizationAlwaysAllowPaths: ['/healthz', '/readyz', '/livez'],
      requestheaderUsernameHeaders: ['x-remote-user'],
      requestheaderGroupHeaders: ['x-remote-group'],
      requestheaderExtraHeadersPrefix: ['x-remote-extra-'],
      authenticationTokenWebhookCacheTtl: 10_000,
      unhealthyZoneThreshold: 0.55,
      flexVolumePluginDir: '/usr/libexec/svc/nodeagent-plugins/volume/exec/',
    });
    expect(run().nodeCidrMaskSize).toBeUndefined();
    expect(run().master).toBeUndefined();
  });

  it('refuses --pod-eviction-timeout, naming the toleration flags that replaced it', () => {
    const message = failure('--pod-eviction-timeout=2m');
    expect(message).toMatch(/^invalid argument "2m" for "--pod-eviction-timeout" flag: has no effect under taint-based eviction/);
    expect(message).toContain('--default-not-ready-toleration-seconds');
    expect(message).toContain('--default-unreachable-toleration-seconds');
    expect(run().podEvictionTimeout).toBe(300_000);
  });

  describe('leader election', () => {
    it('renew deadline is at most the lease duration', () => {
      expect(run('--leader-elect-lease-duration=15s', '--leader-elect-renew-deadline=15s').leaderElectRenewDeadline).toBe(15_000);
      expect(failure('--leader-elect-renew-deadline=20s')).toBe(
        'invalid argument "20s" for "--leader-elect-renew-deadline" flag: must be less than or equal to --leader-elect-lease-duration (15s)',
      );
      expect(failure('--leader-elect-lease-duration=5s')).toContain('--leader-elect-renew-deadline');
    });

    it('retry period is positive and below the renew deadline', () => {
      expect(failure('--leader-elect-retry-period=0s')).toBe('invalid argument "0s" for "--leader-elect-retry-period" flag: must be greater than zero');
      expect(failure('--leader-elect-retry-period=10s')).toBe(
        'invalid argument "10s" for "--leader-elect-retry-period" flag: must be less than --leader-elect-renew-deadline (10s)',
      );
      expect(run('--leader-elect-retry-period=9s').leaderElectRetryPeriod).toBe(9_000);
    });

    it('is not checked when leader election is off', () => {
      expect(run('--leader-elect=false', '--leader-elect-renew-deadline=20s').leaderElect).toBe(false);
    });

    it('--leader-elect-resource-lock is leases, endpointsleases or configmapsleases', () => {
      for (const lock of ['leases', 'endpointsleases', 'configmapsleases'])
        expect(run(`--leader-elect-resource-lock=${lock}`).leaderElectResourceLock).toBe(lock);
      expect(failure('--leader-elect-resource-lock=endpoints')).toBe(
        'invalid argument "endpoints" for "--leader-elect-resource-lock" flag: must be one of: leases, endpointsleases, configmapsleases',
      );
    });
  });

  describe('--controllers', () => {
    it('takes *, name and -name of known controllers', () => {
      expect(run('--controllers=*,-garbagecollector,bootstrapsigner').controllers).toEqual(['*', '-garbagecollector', 'bootstrapsigner']);
      expect(failure('--controllers=*,-nope')).toBe('invalid argument "-nope" for "--controllers" flag: "nope" is not in the list of known controllers');
      expect(failure('--controllers=deployments')).toContain('"deployments" is not in the list of known controllers');
    });

    it('resolves into the set of controllers to start', () => {
      const all = enabledControllers(run());
      expect(all.has('deployment')).toBe(true);
      expect(all.has('endpoints')).toBe(true);
      expect(all.has('bootstrapsigner')).toBe(false);
      const some = enabledControllers(run('--controllers=deployment,replicaset'));
      expect([...some].sort()).toEqual(['deployment', 'replicaset']);
      const most = enabledControllers(run('--controllers=*,-namespace,tokencleaner'));
      expect(most.has('namespace')).toBe(false);
      expect(most.has('tokencleaner')).toBe(true);
      expect(most.has('garbagecollector')).toBe(true);
    });
  });

  describe('values', () => {
    it('--attach-detach-reconcile-sync-period exceeds one second', () => {
      expect(run('--attach-detach-reconcile-sync-period=1001ms').attachDetachReconcileSyncPeriod).toBe(1001);
      expect(failure('--attach-detach-reconcile-sync-period=1s')).toBe(
        'invalid argument "1s" for "--attach-detach-reconcile-sync-period" flag: must be greater than 1s',
      );
    });

    it('every --concurrent-*-syncs is an int32 of at least 1', () => {
      expect(SYNC_FLAGS.length).toBeGreaterThanOrEqual(14);
      for (const name of SYNC_FLAGS) {
        expect(failure(`--${name}=0`)).toBe(`invalid argument "0" for "--${name}" flag: must be greater than or equal to 1`);
        expect(failure(`--${name}=3000000000`)).toContain('value out of range');
      }
      expect(run('--concurrent-deployment-syncs=1').concurrentDeploymentSyncs).toBe(1);
    });

    it('--svc-api-qps and --svc-api-burst are >= 0', () => {
      expect(run('--svc-api-qps=0', '--svc-api-burst=0')).toMatchObject({ svcApiQps: 0, svcApiBurst: 0 });
      expect(run('--svc-api-qps', '50.5').svcApiQps).toBe(50.5);
      expect(failure('--svc-api-qps=-1')).toBe('invalid argument "-1" for "--svc-api-qps" flag: must be greater than or equal to 0');
      expect(failure('--svc-api-burst=-1')).toContain('must be greater than or equal to 0');
    });

    it('--secure-port is 0..65535, 0 disabling serving', () => {
      expect(run('--secure-port=0').securePort).toBe(0);
      expect(failure('--secure-port=65536')).toBe('invalid argument "65536" for "--secure-port" flag: must be between 0 and 65535, inclusive');
    });

    it("--svc-api-content-type is JSON or protobuf, under the specification's name or Kubernetes'", () => {
      expect(run('--svc-api-content-type=application/json').svcApiContentType).toBe('application/json');
      expect(run('--svc-api-content-type=application/vnd.kubernetes.protobuf').svcApiContentType).toBe('application/vnd.kubernetes.protobuf');
      expect(failure('--svc-api-content-type=application/yaml')).toBe(
        'invalid argument "application/yaml" for "--svc-api-content-type" flag: must be one of: application/json, application/vnd.svc.protobuf, application/vnd.kubernetes.protobuf',
      );
    });

    it('--min-resync-period is > 0', () => {
      expect(run('--min-resync-period=1h').minResyncPeriod).toBe(3_600_000);
      expect(failure('--min-resync-period=0')).toBe('invalid argument "0" for "--min-resync-period" flag: must be greater than 0s');
    });

    it('--node-cidr-mask-size* are within their family range and combine as node IPAM requires', () => {
      expect(failure('--node-cidr-mask-size-ipv4=33')).toContain('must be between 1 and 32');
      expect(failure('--node-cidr-mask-size-ipv6=129')).toContain('must be between 1 and 128');
      expect(failure('--node-cidr-mask-size=0')).toContain('must be between 1 and 128');
      expect(failure('--node-cidr-mask-size=24', '--node-cidr-mask-size-ipv4=24')).toContain('cannot be used with --node-cidr-mask-size');
      const base = ['--allocate-node-cidrs'];
      expect(run(...base, '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=24').nodeCidrMaskSize).toBe(24);
      expect(failure(...base, '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=40')).toContain('must be at most 32 for the IPv4 cluster CIDR');
      expect(failure(...base, '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=8')).toContain('must not be smaller than the prefix length');
      expect(failure(...base, '--cluster-cidr=10.244.0.0/16,fd00::/48', '--node-cidr-mask-size=24')).toContain(
        'is not allowed with a dual-stack --cluster-cidr',
      );
      expect(failure(...base, '--cluster-cidr=10.244.0.0/16,fd00::/48')).toContain('node CIDRs are allocated from one IPv4 range only');
      expect(failure(...base)).toBe('invalid argument "true" for "--allocate-node-cidrs" flag: requires --cluster-cidr');
      expect(failure(...base, '--cluster-cidr=10.244.0.0/16,fd00::/96')).toBe(
        'invalid argument "64" for "--node-cidr-mask-size-ipv6" flag: must not be smaller than the prefix length of the cluster CIDR fd00::/96',
      );
    });

    it('--cluster-cidr and --service-cluster-ip-range require --allocate-node-cidrs and are dual-stack CIDR lists', () => {
      expect(failure('--cluster-cidr=10.244.0.0/16')).toBe('invalid argument "10.244.0.0/16" for "--cluster-cidr" flag: requires --allocate-node-cidrs');
      expect(failure('--service-cluster-ip-range=10.96.0.0/12')).toContain('requires --allocate-node-cidrs');
      expect(failure('--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16,10.245.0.0/16')).toContain('one IPv4 and one IPv6');
      expect(run('--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--service-cluster-ip-range=10.96.0.0/12').serviceClusterIpRange).toBe(
        '10.96.0.0/12',
      );
    });

    it('the general cluster signing pair excludes the per-signer pairs; pairs are complete', () => {
      const general = ['--cluster-signing-cert-file=ca.crt', '--cluster-signing-key-file=ca.key'];
      expect(run(...general).clusterSigningCertFile).toBe('ca.crt');
      expect(
        run('--cluster-signing-nodeagent-serving-cert-file=s.crt', '--cluster-signing-nodeagent-serving-key-file=s.key').clusterSigningNodeagentServingCertFile,
      ).toBe('s.crt');
      expect(failure(...general, '--cluster-signing-apiserver-client-cert-file=a.crt', '--cluster-signing-apiserver-client-key-file=a.key')).toBe(
        'invalid argument "a.crt" for "--cluster-signing-apiserver-client-cert-file" flag: cannot be set together with --cluster-signing-cert-file',
      );
      expect(failure('--cluster-signing-cert-file=ca.crt')).toContain('--cluster-signing-key-file must be given with --cluster-signing-cert-file');
      expect(failure('--cluster-signing-legacy-unknown-key-file=l.key')).toContain(
        '--cluster-signing-legacy-unknown-cert-file must be given with --cluster-signing-legacy-unknown-key-file',
      );
    });

    it('checks other values the specification constrains', () => {
      expect(failure('--logging-format=json')).toContain('must be one of: text');
      expect(failure('-v', '-2')).toContain('must be greater than or equal to 0');
      expect(failure('--vmodule=x=y')).toContain('pattern=N');
      expect(failure('--show-hidden-metrics-for-version=v1')).toContain('<major>.<minor>');
      expect(failure('--external-cloud-volume-plugin=gce')).toContain('is only used with --cloud-provider=external');
      expect(run('--cloud-provider=external', '--external-cloud-volume-plugin=gce').externalCloudVolumePlugin).toBe('gce');
      expect(failure('--unhealthy-zone-threshold=1.5')).toContain('must be between 0 and 1');
      expect(failure('--max-endpoints-per-slice=1001')).toContain('must be between 1 and 1000');
      expect(failure('--volume-host-cidr-denylist=10.0.0.0/33')).toContain('invalid CIDR address');
      expect(failure('--leader-elect-resource-name=')).toContain('must not be empty');
      expect(failure('--tls-cert-file=a.crt')).toContain('--tls-private-key-file must be given with --tls-cert-file');
    });
  });

  describe('help', () => {
    const outcome = parseControllerManagerOptions(['-h']);
    const text = outcome.action === 'help' ? outcome.text : '';

    it('lists every flag with its type and default', () => {
      for (const def of allFlags) {
        const line = text.split('\n').find((l) => new RegExp(`--${def.name}( |$)`).test(l));
        expect(line).toBeDefined();
        if (def.type.name) expect(line).toContain(`--${def.name} ${def.type.name} `);
        if (def.hasDefault && def.default !== undefined) expect(line).toContain(`(default `);
      }
    });

    it.each([
      ['--leader-elect-lease-duration duration', '(default 15s)'],
      ['--leader-elect-renew-deadline duration', '(default 10s)'],
      ['--leader-elect-retry-period duration', '(default 2s)'],
      ['--leader-elect-resource-lock string', '(default "leases")'],
      ['--leader-elect-resource-name string', '(default "svc-controller-manager")'],
      ['--leader-elect-resource-namespace string', '(default "svc-system")'],
      ['--min-resync-period duration', '(default 12h0m0s)'],
      ['--concurrent-gc-syncs int32', '(default 20)'],
      ['--svc-api-burst int32', '(default 30)'],
      ['--svc-api-qps float', '(default 20)'],
      ['--controllers strings', '(default [*])'],
      ['--cluster-signing-duration duration', '(default 8760h0m0s)'],
      ['--attach-detach-reconcile-sync-period duration', '(default 1m0s)'],
      ['--secure-port int', '(default 10257)'],
    ])('shows %s with %s', (flagText, defaultText) => {
      const line = text.split('\n').find((l) => l.includes(flagText));
      expect(line).toContain(defaultText);
    });

    it('puts every flag in exactly one group', () => {
      const names = allFlags.map((f) => f.name);
      expect(new Set(names).size).toBe(names.length);
      expect(text).toContain('\nLeader election flags:\n\n');
      expect(text).toContain('\nDeployment controller flags:\n\n');
    });
  });
});
