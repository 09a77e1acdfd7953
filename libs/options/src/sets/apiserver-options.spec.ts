import { FlagError } from '../flag-set/flag-error';
import type { FlagDef } from '../flag-set/flag';
import { API_SERVER_FLAGS, type ApiServerFlags } from './apiserver-flags';
import { parseApiServerOptions, serviceClusterIpRanges, watchCacheSizes } from './apiserver-options';

function run(...argv: string[]): ApiServerFlags {
  const outcome = parseApiServerOptions(argv);
  if (outcome.action !== 'run') throw new Error(`expected run, got ${outcome.action}`);
  return outcome.options;
}

function failure(...argv: string[]): string {
  try {
    parseApiServerOptions(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    const message = (error as FlagError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to fail`);
}

const allFlags: FlagDef[] = API_SERVER_FLAGS.groups.flatMap((g) => [...g.flags]);

describe('API server options', () => {
  describe('defaults', () => {
    it('match the specification, with the product store', () => {
      const o = run();
      expect(o).toMatchObject({
        securePort: 6443,
        bindAddress: '0.0.0.0',
        certDir: '/var/run/svc',
        storageBackend: 'embedded',
        dataDir: '/var/lib/svc/data',
        svcconfigOut: '',
        storePrefix: '/registry',
        storeCompactionInterval: 300_000,
        storeCountMetricPollPeriod: 60_000,
        storeDbMetricPollInterval: 30_000,
        storeHealthcheckTimeout: 2_000,
        storeReadycheckTimeout: 2_000,
        storageMediaType: 'application/vnd.svc.protobuf',
        maxRequestsInflight: 400,
        maxMutatingRequestsInflight: 200,
        minRequestTimeout: 1800,
        requestTimeout: 60_000,
        eventTtl: 3_600_000,
        authorizationMode: ['AlwaysAllow'],
        authenticationTokenWebhookCacheTtl: 120_000,
        authorizationWebhookCacheAuthorizedTtl: 300_000,
        authorizationWebhookCacheUnauthorizedTtl: 30_000,
        serviceNodePortRange: { base: 30000, size: 2768 },
        endpointReconcilerType: 'lease',
        loggingFormat: 'text',
        logFlushFrequency: 5_000,
        auditLogFormat: 'json',
        auditLogMode: 'blocking',
        auditWebhookMode: 'batch',
        auditWebhookBatchMaxSize: 400,
        auditWebhookBatchMaxWait: 30_000,
        auditWebhookBatchThrottleBurst: 15,
        auditWebhookBatchThrottleQps: 10,
        auditWebhookInitialBackoff: 10_000,
        auditLogTruncateMaxBatchSize: 10485760,
        auditLogTruncateMaxEventSize: 102400,
        oidcSigningAlgs: ['RS256'],
        oidcUsernameClaim: 'sub',
        nodeagentPreferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
        cloudProviderGceL7lbSrcCidrs: ['130.211.0.0/22', '35.191.0.0/16'],
        allowMetricLabels: {},
        watchCache: true,
        profiling: true,
        anonymousAuth: true,
      });
      expect(o.advertiseAddress).toBeUndefined();
      expect(o.featureGates).toBeUndefined();
      expect(o.runtimeConfig).toBeUndefined();
      expect(o.v).toBeUndefined();
      expect(o.goawayChance).toBeUndefined();
    });

    it('has one key per flag except help and version', () => {
      const keys = Object.keys(run()).sort();
      expect(keys).toEqual(
        allFlags
          .filter((f) => !f.action)
          .map((f) => f.key)
          .sort(),
      );
    });
  });

  describe('typed values', () => {
    it('parses feature gates, runtime config, node port range, durations and lists', () => {
      const o = run(
        '--feature-gates=ConsistentListFromCache=False',
        '--runtime-config=api/all=false,batch/v1',
        '--service-node-port-range=20000-20010',
        '--store-compaction-interval=0',
        '--authorization-mode=Node,RBAC',
        '--tls-sni-cert-key=a.crt,a.key:*.example.com',
        '--tls-sni-cert-key',
        'b.crt,b.key',
        '--oidc-required-claim=hd=example.com',
        '--cors-allowed-origins=^https://a\\.example$,localhost',
      );
      expect(o.featureGates).toEqual({ ConsistentListFromCache: false });
      expect(o.runtimeConfig).toEqual({ 'api/all': 'false', 'batch/v1': 'true' });
      expect(o.serviceNodePortRange).toEqual({ base: 20000, size: 11 });
      expect(o.storeCompactionInterval).toBe(0);
      expect(o.authorizationMode).toEqual(['Node', 'RBAC']);
      expect(o.tlsSniCertKey).toEqual([
        { certFile: 'a.crt', keyFile: 'a.key', names: ['*.example.com'] },
        { certFile: 'b.crt', keyFile: 'b.key', names: [] },
      ]);
      expect(o.oidcRequiredClaim).toEqual({ hd: 'example.com' });
      expect(o.corsAllowedOrigins).toEqual(['^https://a\\.example$', 'localhost']);
    });

    it('exposes parsed service CIDRs and watch cache sizes', () => {
      expect(serviceClusterIpRanges(run('--service-cluster-ip-range=10.96.0.0/12,fd00::/108')).map((c) => c.family)).toEqual(['IPv4', 'IPv6']);
      expect(serviceClusterIpRanges(run())).toEqual([]);
      expect(watchCacheSizes(run('--watch-cache-sizes=pods#0,deployments.apps#100'))).toEqual(
        new Map([
          ['pods', 0],
          ['deployments.apps', 100],
        ]),
      );
    });
  });

  describe('validation', () => {
    it('--secure-port cannot be 0 and must be a port', () => {
      expect(failure('--secure-port=0')).toBe('invalid argument "0" for "--secure-port" flag: cannot be 0');
      expect(failure('--secure-port', '65536')).toBe('invalid argument "65536" for "--secure-port" flag: must be between 1 and 65535, inclusive');
      expect(failure('--secure-port=-1')).toContain('must be between 1 and 65535');
      expect(run('--secure-port=443').securePort).toBe(443);
      expect(run('--secure-port', '65535').securePort).toBe(65535);
    });

    it('--goaway-chance is within 0..0.02', () => {
      expect(run('--goaway-chance=0').goawayChance).toBe(0);
      expect(run('--goaway-chance=0.02').goawayChance).toBe(0.02);
      expect(failure('--goaway-chance=0.03')).toBe('invalid argument "0.03" for "--goaway-chance" flag: must be between 0 and 0.02, inclusive');
      expect(failure('--goaway-chance=-0.01')).toContain('must be between 0 and 0.02');
    });

    it('--logging-format is only text', () => {
      expect(run('--logging-format=text').loggingFormat).toBe('text');
      expect(failure('--logging-format=json')).toBe('invalid argument "json" for "--logging-format" flag: must be one of: text');
    });

    it('--feature-gates takes only the gates the server implements', () => {
      expect(failure('--feature-gates=ConsistentListFromCache=true,WatchList=false')).toBe(
        'invalid argument "ConsistentListFromCache=true,WatchList=false" for "--feature-gates" flag: unrecognized feature gate: WatchList (known: APIServerIdentity, ConsistentListFromCache)',
      );
    });

    it('--authorization-mode takes known modes once each', () => {
      expect(run('--authorization-mode=AlwaysAllow,AlwaysDeny,RBAC,Node').authorizationMode).toEqual(['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node']);
      expect(failure('--authorization-mode=RBAC,Magic')).toBe(
        'invalid argument "RBAC,Magic" for "--authorization-mode" flag: "Magic" is not one of: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node',
      );
      expect(failure('--authorization-mode=RBAC,RBAC')).toContain('"RBAC" is given more than once');
      expect(failure('--authorization-mode=RBAC', '--authorization-mode=RBAC')).toContain('"RBAC" is given more than once');
      expect(failure('--authorization-mode=rbac')).toContain('"rbac" is not one of');
    });

    it('ABAC needs --authorization-policy-file and Webhook needs --authorization-webhook-config-file', () => {
      expect(failure('--authorization-mode=ABAC')).toBe(
        'invalid argument "ABAC" for "--authorization-mode" flag: authorization mode ABAC requires --authorization-policy-file',
      );
      expect(run('--authorization-mode=ABAC', '--authorization-policy-file=p.jsonl').authorizationPolicyFile).toBe('p.jsonl');
      expect(failure('--authorization-mode=RBAC,Webhook')).toContain('authorization mode Webhook requires --authorization-webhook-config-file');
      expect(run('--authorization-mode=Webhook', '--authorization-webhook-config-file=w.yaml').authorizationMode).toEqual(['Webhook']);
      expect(failure('--authorization-policy-file=p.jsonl')).toBe(
        'invalid argument "p.jsonl" for "--authorization-policy-file" flag: is only used with --authorization-mode ABAC',
      );
      expect(failure('--authorization-webhook-config-file=w.yaml')).toContain('is only used with --authorization-mode Webhook');
    });

    it('--authorization-webhook-version and --authentication-token-webhook-version are v1 or v1beta1', () => {
      expect(run('--authorization-webhook-version=v1', '--authentication-token-webhook-version=v1')).toMatchObject({
        authorizationWebhookVersion: 'v1',
        authenticationTokenWebhookVersion: 'v1',
      });
      expect(failure('--authorization-webhook-version=v2')).toContain('must be one of: v1, v1beta1');
    });

    it('--tls-min-version is VersionTLS10..13', () => {
      for (const v of ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']) expect(run(`--tls-min-version=${v}`).tlsMinVersion).toBe(v);
      expect(failure('--tls-min-version=VersionTLS14')).toBe(
        'invalid argument "VersionTLS14" for "--tls-min-version" flag: must be one of: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
      );
    });

    it('--tls-cipher-suites takes Go suite names', () => {
      expect(run('--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256').tlsCipherSuites).toHaveLength(2);
      expect(failure('--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256')).toContain('"ECDHE-RSA-AES128-GCM-SHA256" is not one of');
    });

    it('--tls-cert-file and --tls-private-key-file are given together', () => {
      expect(failure('--tls-cert-file=s.crt')).toBe(
        'invalid argument "s.crt" for "--tls-cert-file" flag: --tls-private-key-file must be given with --tls-cert-file',
      );
      expect(failure('--tls-private-key-file=s.key')).toContain('--tls-cert-file must be given with --tls-private-key-file');
      expect(run('--tls-cert-file=s.crt', '--tls-private-key-file=s.key')).toMatchObject({ tlsCertFile: 's.crt', tlsPrivateKeyFile: 's.key' });
      expect(failure('--proxy-client-cert-file=p.crt')).toContain('--proxy-client-key-file must be given with --proxy-client-cert-file');
    });

    it('--audit-log-format is legacy or json; audit modes are batch, blocking, blocking-strict', () => {
      expect(run('--audit-log-format=legacy').auditLogFormat).toBe('legacy');
      expect(failure('--audit-log-format=yaml')).toBe('invalid argument "yaml" for "--audit-log-format" flag: must be one of: legacy, json');
      for (const mode of ['batch', 'blocking', 'blocking-strict']) {
        expect(run(`--audit-log-mode=${mode}`, `--audit-webhook-mode=${mode}`)).toMatchObject({ auditLogMode: mode, auditWebhookMode: mode });
      }
      expect(failure('--audit-log-mode=async')).toBe('invalid argument "async" for "--audit-log-mode" flag: must be one of: batch, blocking, blocking-strict');
      expect(failure('--audit-webhook-mode=strict')).toContain('"--audit-webhook-mode" flag: must be one of: batch, blocking, blocking-strict');
      expect(failure('--audit-log-version=audit.svc.io/v2')).toContain('must be one of: audit.svc.io/v1');
      expect(failure('--audit-log-maxage=-1')).toContain('must be greater than or equal to 0');
    });

    it('checks batch and truncation settings of an enabled audit backend', () => {
      expect(failure('--audit-log-path=-', '--audit-log-mode=batch', '--audit-log-batch-max-size=0')).toBe(
        'invalid argument "0" for "--audit-log-batch-max-size" flag: must be positive in batch mode',
      );
      expect(run('--audit-log-mode=batch', '--audit-log-batch-max-size=0').auditLogBatchMaxSize).toBe(0);
      expect(failure('--audit-webhook-config-file=w', '--audit-webhook-batch-throttle-qps=0')).toContain('must be positive when throttling is enabled');
      expect(failure('--audit-webhook-config-file=w', '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-batch-size=10')).toContain(
        'must not be smaller than --audit-webhook-truncate-max-event-size',
      );
    });

    it('--oidc-signing-algs takes the listed algorithms', () => {
      expect(run('--oidc-signing-algs=RS256,ES512,PS384').oidcSigningAlgs).toEqual(['RS256', 'ES512', 'PS384']);
      expect(failure('--oidc-signing-algs=HS256')).toBe(
        'invalid argument "HS256" for "--oidc-signing-algs" flag: "HS256" is not one of: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512',
      );
    });

    it('--oidc-client-id is required with --oidc-issuer-url, which is https', () => {
      expect(failure('--oidc-issuer-url=https://issuer.example')).toBe(
        'invalid argument "https://issuer.example" for "--oidc-issuer-url" flag: --oidc-client-id is required when --oidc-issuer-url is set',
      );
      expect(run('--oidc-issuer-url=https://issuer.example', '--oidc-client-id=svc').oidcClientId).toBe('svc');
      expect(failure('--oidc-issuer-url=http://issuer.example', '--oidc-client-id=svc')).toContain('must be a valid https URL');
    });

    it('--endpoint-reconciler-type is master-count, lease or none', () => {
      for (const t of ['master-count', 'lease', 'none']) expect(run(`--endpoint-reconciler-type=${t}`).endpointReconcilerType).toBe(t);
      expect(failure('--endpoint-reconciler-type=leases')).toContain('must be one of: master-count, lease, none');
    });

    it('admission plugin flags take the specified names and may not overlap', () => {
      expect(run('--enable-admission-plugins=NodeRestriction,AlwaysPullImages', '--disable-admission-plugins=ResourceQuota')).toMatchObject({
        enableAdmissionPlugins: ['NodeRestriction', 'AlwaysPullImages'],
        disableAdmissionPlugins: ['ResourceQuota'],
      });
      expect(failure('--enable-admission-plugins=NodeRestriction,Initializers')).toContain('"Initializers" is not one of');
      expect(failure('--disable-admission-plugins=Nope')).toContain('"Nope" is not one of');
      expect(failure('--enable-admission-plugins=NodeRestriction', '--disable-admission-plugins=NodeRestriction')).toBe(
        'invalid argument "NodeRestriction" for "--disable-admission-plugins" flag: is in both --enable-admission-plugins and --disable-admission-plugins',
      );
    });

    it('--service-node-port-range is a valid range', () => {
      expect(run('--service-node-port-range=30000').serviceNodePortRange).toEqual({ base: 30000, size: 1 });
      expect(failure('--service-node-port-range=32767-30000')).toBe(
        'invalid argument "32767-30000" for "--service-node-port-range" flag: end port cannot be less than start port: 32767-30000',
      );
      expect(failure('--service-node-port-range=30000-70000')).toContain('cannot be greater than 65535');
      expect(failure('--service-node-port-range=abc')).toContain('unable to parse port range');
    });

    it('--svc-service-node-port lies within the node port range', () => {
      expect(run('--svc-service-node-port=30001').svcServiceNodePort).toBe(30001);
      expect(failure('--svc-service-node-port=80')).toBe(
        'invalid argument "80" for "--svc-service-node-port" flag: must be within --service-node-port-range 30000-32767',
      );
    });

    it('--watch-cache-sizes entries are resource[.group]#N with N >= 0', () => {
      expect(run('--watch-cache-sizes=pods#0,deployments.apps#1000').watchCacheSizes).toEqual(['pods#0', 'deployments.apps#1000']);
      expect(failure('--watch-cache-sizes=pods#-1')).toBe('invalid argument "pods#-1" for "--watch-cache-sizes" flag: watch cache size cannot be negative');
      expect(failure('--watch-cache-sizes=pods')).toContain('entries must be resource[.group]#size');
      expect(failure('--watch-cache-sizes=pods#x')).toContain('whole-number size');
      expect(failure('--watch-cache-sizes=Pods#1')).toContain('entries must be resource[.group]#size');
    });

    it('in-flight limits are >= 0 and sum to a positive number with priority and fairness', () => {
      expect(run('--max-requests-inflight=0', '--max-mutating-requests-inflight=10')).toMatchObject({
        maxRequestsInflight: 0,
        maxMutatingRequestsInflight: 10,
      });
      expect(failure('--max-requests-inflight=-1')).toBe('invalid argument "-1" for "--max-requests-inflight" flag: must be greater than or equal to 0');
      expect(failure('--max-mutating-requests-inflight=-5')).toContain('must be greater than or equal to 0');
      expect(failure('--max-requests-inflight=0', '--max-mutating-requests-inflight=0')).toContain('must sum to a positive number');
      expect(run('--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false').maxRequestsInflight).toBe(0);
    });

    it('--min-request-timeout is > 0', () => {
      expect(run('--min-request-timeout=1').minRequestTimeout).toBe(1);
      expect(failure('--min-request-timeout=0')).toBe('invalid argument "0" for "--min-request-timeout" flag: must be greater than 0');
    });

    it('--storage-backend is embedded, store3 or mongodb', () => {
      expect(run('--storage-backend=embedded').storageBackend).toBe('embedded');
      expect(run('--storage-backend=store3', '--store-servers=http://127.0.0.1:2379').storageBackend).toBe('store3');
      expect(failure('--storage-backend=store3')).toBe(
        'invalid argument "store3" for "--storage-backend" flag: --store-servers is required with the store3 backend',
      );
      expect(failure('--storage-backend=etcd3')).toContain('the etcd v3 backend is called store3 here');
      expect(failure('--storage-backend=etcd')).toContain('must be one of: embedded, store3, mongodb');
    });

    it('store3-only flags are refused with the other backends', () => {
      expect(failure('--store-servers-overrides=/events#http://a:2379')).toContain('needs --storage-backend=store3 or mongodb');
      expect(failure('--lease-reuse-duration-seconds=30')).toContain('is used by the store3 backend only');
      const o = run(
        '--storage-backend=store3',
        '--store-servers=http://a:2379',
        '--store-servers-overrides=/events#http://b:2379',
        '--lease-reuse-duration-seconds=30',
      );
      expect(o.leaseReuseDurationSeconds).toBe(30);
    });

    it('--store-servers is required for mongodb and each is a URL', () => {
      expect(failure('--storage-backend=mongodb')).toBe(
        'invalid argument "mongodb" for "--storage-backend" flag: --store-servers is required with the mongodb backend',
      );
      expect(run('--storage-backend=mongodb', '--store-servers=mongodb://db-0:27017,mongodb://db-1:27017').storeServers).toEqual([
        'mongodb://db-0:27017',
        'mongodb://db-1:27017',
      ]);
      // A connection string naming several hosts is split at its commas; its later hosts carry no scheme.
      expect(run('--storage-backend=mongodb', '--store-servers=mongodb://db:27017,db-1:27017/svc?replicaSet=rs0').storeServers).toEqual([
        'mongodb://db:27017',
        'db-1:27017/svc?replicaSet=rs0',
      ]);
      expect(failure('--store-servers=http://etcd-0:2379,etcd-1:2379')).toBe(
        'invalid argument "etcd-1:2379" for "--store-servers" flag: "etcd-1:2379" is not a URL (scheme://host:port)',
      );
    });

    it('--store-servers-overrides entries are group/resource#servers', () => {
      expect(
        run('--storage-backend=store3', '--store-servers=https://c:2379', '--store-servers-overrides=/events#https://a:2379;https://b:2379')
          .storeServersOverrides,
      ).toEqual(['/events#https://a:2379;https://b:2379']);
      expect(failure('--store-servers-overrides=events#https://a:2379')).toContain('entries must be group/resource#servers');
      expect(failure('--store-servers-overrides=/events#nope')).toContain('is not a URL');
    });

    it('--service-cluster-ip-range holds at most two CIDRs, one of each family', () => {
      expect(run('--service-cluster-ip-range=10.96.0.0/12').serviceClusterIpRange).toBe('10.96.0.0/12');
      expect(run('--service-cluster-ip-range=10.96.0.0/12,fd00::/108').serviceClusterIpRange).toBe('10.96.0.0/12,fd00::/108');
      expect(failure('--service-cluster-ip-range=10.96.0.0/12,10.97.0.0/16')).toBe(
        'invalid argument "10.96.0.0/12,10.97.0.0/16" for "--service-cluster-ip-range" flag: two CIDRs must be one IPv4 and one IPv6 (dual stack)',
      );
      expect(failure('--service-cluster-ip-range=10.96.0.0/12,fd00::/108,10.0.0.0/8')).toContain('at most two CIDRs');
      expect(failure('--service-cluster-ip-range=10.96.0.0')).toContain('invalid CIDR address: 10.96.0.0');
    });

    it('addresses are IP addresses', () => {
      expect(run('--advertise-address=10.0.0.1', '--bind-address=::').bindAddress).toBe('::');
      expect(run('--bind-address=').bindAddress).toBe('');
      expect(failure('--advertise-address=master.local')).toBe('invalid argument "master.local" for "--advertise-address" flag: not a valid IP address');
    });

    it('-v is >= 0, --vmodule is pattern=N, --show-hidden-metrics-for-version is <major>.<minor>', () => {
      expect(run('-v', '4').v).toBe(4);
      expect(failure('-v=-1')).toBe('invalid argument "-1" for "-v, --v" flag: must be greater than or equal to 0');
      expect(run('--vmodule=foo*=3,bar=2').vmodule).toEqual([
        { pattern: 'foo*', level: 3 },
        { pattern: 'bar', level: 2 },
      ]);
      expect(failure('--vmodule=foo')).toContain('expect comma-separated list of pattern=N');
      expect(run('--show-hidden-metrics-for-version=1.16').showHiddenMetricsForVersion).toBe('1.16');
      expect(failure('--show-hidden-metrics-for-version=1.16.0')).toBe(
        'invalid argument "1.16.0" for "--show-hidden-metrics-for-version" flag: must be <major>.<minor>, for example 1.16',
      );
    });

    it('checks other values the specification constrains', () => {
      expect(failure('--nodeagent-preferred-address-types=Hostname,PodIP')).toContain('"PodIP" is not one of');
      expect(failure('--storage-media-type=text/plain')).toContain('must be one of: application/json');
      expect(failure('--strict-transport-security-directives=max-age=abc')).toContain('directives are max-age=<seconds>');
      expect(run('--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload').strictTransportSecurityDirectives).toHaveLength(3);
      expect(failure('--cors-allowed-origins=(')).toContain('not a valid regular expression');
      expect(failure('--service-account-issuer=https://ok.example', '--service-account-issuer=bad:issuer')).toContain('"bad:issuer" is not a URL');
      expect(failure('--service-account-signing-key-file=sa.key')).toContain('--service-account-key-file (or --tls-private-key-file) is required');
      expect(run('--service-account-signing-key-file=sa.key', '--service-account-key-file=sa.pub').serviceAccountKeyFile).toEqual(['sa.pub']);
      expect(failure('--allow-metric-labels=nolabel=a')).toContain('key must be <MetricName>,<LabelName>');
      expect(run('--allow-metric-labels=apiserver_request_total,verb=GET,LIST').allowMetricLabels).toEqual({ 'apiserver_request_total,verb': 'GET,LIST' });
      expect(failure('--shutdown-delay-duration=-1s')).toContain('must be greater than or equal to 0s');
      expect(failure('--store-healthcheck-timeout=0')).toContain('must be greater than 0s');
      expect(failure('--identity-lease-duration-seconds=0')).toContain('must be greater than 0');
    });
  });

  describe('help', () => {
    const outcome = parseApiServerOptions(['--help']);
    const text = outcome.action === 'help' ? outcome.text : '';

    it('lists every flag with its type and default', () => {
      for (const def of allFlags) {
        const line = text.split('\n').find((l) => new RegExp(`--${def.name}( |$)`).test(l));
        expect(line).toBeDefined();
        if (def.type.name) expect(line).toContain(`--${def.name} ${def.type.name} `);
        if (def.hasDefault && def.default !== undefined && def.type.format(def.default) !== '') {
          expect(line).toContain('(default ');
        }
      }
    });

    it.each([
      ['--secure-port int', '(default 6443)'],
      ['--store-compaction-interval duration', '(default 5m0s)'],
      ['--store-prefix string', '(default "/registry")'],
      ['--store-count-metric-poll-period duration', '(default 1m0s)'],
      ['--max-requests-inflight int', '(default 400)'],
      ['--max-mutating-requests-inflight int', '(default 200)'],
      ['--min-request-timeout int', '(default 1800)'],
      ['--authorization-mode strings', '(default [AlwaysAllow])'],
      ['--event-ttl duration', '(default 1h0m0s)'],
      ['--storage-backend string', '(default "embedded")'],
      ['--service-node-port-range portRange', '(default 30000-32767)'],
      ['--audit-webhook-batch-throttle-burst int', '(default 15)'],
      ['--audit-webhook-initial-backoff duration', '(default 10s)'],
      ['--store-healthcheck-timeout duration', '(default 2s)'],
      ['--watch-cache ', '(default true)'],
      ['--allow-metric-labels stringToString', '(default [])'],
    ])('shows %s with %s', (flagText, defaultText) => {
      const line = text.split('\n').find((l) => l.includes(flagText));
      expect(line).toContain(defaultText);
    });

    it('shows the groups as headings', () => {
      for (const heading of [
        'Generic',
        'Store',
        'Secure serving',
        'Audit',
        'Authentication',
        'Authorization',
        'Admission',
        'Limits',
        'Feature',
        'Logs',
        'Metrics',
        'Product',
      ]) {
        expect(text).toContain(`\n${heading} flags:\n\n`);
      }
      expect(text).toContain('Usage:\n  svc-apiserver [flags]');
    });
  });

  it('answers --version with the program name', () => {
    expect(parseApiServerOptions(['--version'])).toEqual({ action: 'version', text: expect.stringMatching(/^svc-apiserver v\d/) });
  });
});
