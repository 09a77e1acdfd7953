import { errorMessage } from '@svc/machinery';
import { parseDualStackCidrs } from '../flags/cidr';
import { bool } from '../flags/bool';
import { cidrs } from '../flags/cidrs';
import { duration } from '../flags/duration';
import { float } from '../flags/float';
import { int, int32 } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag, type CheckResult } from '../flag-set/flag';
import { flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { atLeast, between, durationAbove, durationAtLeast, eachEntry } from './checks';
import {
  clientFlags,
  CLIENT_CA_FLAG,
  CLOUD_FLAGS,
  featureGatesFlag,
  CONTROLLER_MANAGER_FEATURE_GATES,
  leaderElectionFlags,
  LOG_FLAGS,
  METRICS_FLAGS,
  PROFILING_FLAGS,
  SHARED_SERVING_FLAGS,
} from './common-flags';
import { controllerEntryProblem } from './controllers';

const PROGRAM = 'svc-controller-manager';

/** Certificate signers that may each have their own CA via --cluster-signing-<signer>-cert-file/-key-file. */
export const CLUSTER_SIGNERS = ['apiserver-client', 'nodeagent-client', 'nodeagent-serving', 'legacy-unknown'] as const;

const SYNCS_HELP = 'objects synced concurrently; larger numbers mean more responsiveness and more load';
const atLeastOne = atLeast(1);

function cidrListProblem(value: string): CheckResult {
  try {
    parseDualStackCidrs(value);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function syncs<const N extends string>(name: N, def: number, what: string) {
  return flag({ name, type: int32, default: def, help: `number of ${what} ${SYNCS_HELP}`, check: atLeastOne });
}

function signerFiles<const S extends (typeof CLUSTER_SIGNERS)[number]>(signer: S) {
  return [
    flag({ name: `cluster-signing-${signer}-cert-file`, type: string, help: `CA certificate (PEM) for the ${signer} signer; exclusive with the general pair` }),
    flag({
      name: `cluster-signing-${signer}-key-file`,
      type: string,
      help: `CA private key (PEM, RSA or ECDSA) for the ${signer} signer; exclusive with the general pair`,
    }),
  ] as const;
}

/** The controller manager's flag table (spec 2). */
export const CONTROLLER_MANAGER_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The controller manager is a daemon embedding the core control loops. A controller watches shared state through\n' +
    'the API server and makes changes to move current state towards desired state.',
  groups: [
    {
      title: 'Generic',
      flags: [
        helpFlag(PROGRAM),
        versionFlag(),
        flag({ name: 'allocate-node-cidrs', type: bool, help: 'allocate pod CIDRs and set them on the cloud provider' }),
        flag({ name: 'cidr-allocator-type', type: string, default: 'RangeAllocator', help: 'CIDR allocator' }),
        ...CLOUD_FLAGS,
        flag({
          name: 'azure-container-registry-config',
          type: string,
          help: 'container registry configuration of the cloud vendor',
        }),
        flag({
          name: 'cluster-cidr',
          type: string,
          help: 'pod CIDR range (one, or an IPv4 and an IPv6 one); requires `--allocate-node-cidrs`',
          check: cidrListProblem,
        }),
        flag({ name: 'cluster-name', type: string, default: 'svc', help: 'instance prefix' }),
        flag({
          name: 'configure-cloud-routes',
          type: bool,
          default: true,
          help: 'configure allocated CIDRs on the cloud provider',
        }),
        flag({
          name: 'external-cloud-volume-plugin',
          type: string,
          help: 'volume plugin of the cloud provider; only with external cloud provider (`--cloud-provider=external`)',
        }),
        flag({
          name: 'min-resync-period',
          type: duration,
          default: 43_200_000,
          help: 'reflector resync random between this and twice this',
          check: durationAbove(0),
        }),
        flag({
          name: 'node-monitor-period',
          type: duration,
          default: 5_000,
          help: 'period of syncing node status in the node lifecycle controller',
          check: durationAbove(0),
        }),
        flag({
          name: 'route-reconciliation-period',
          type: duration,
          default: 10_000,
          help: 'period of reconciling routes created for nodes by the cloud provider',
        }),
        flag({
          name: 'use-service-account-credentials',
          type: bool,
          help: 'individual credentials per controller',
        }),
        ...PROFILING_FLAGS,
      ],
    },
    {
      title: 'Controllers',
      flags: [
        flag({
          name: 'controllers',
          type: strings,
          default: ['*'],
          help: '`*` all default-on, `foo` enable, `-foo` disable',
          check: eachEntry(controllerEntryProblem),
        }),
        flag({
          name: 'controller-start-interval',
          type: duration,
          help: 'interval between starting controllers',
          check: durationAtLeast(0),
        }),
      ],
    },
    {
      title: 'Leader election',
      flags: [
        ...leaderElectionFlags('svc-controller-manager', ['leases', 'endpointsleases', 'configmapsleases']),
        flag({ name: 'enable-leader-migration', type: bool, help: 'enable leader migration' }),
        flag({
          name: 'leader-migration-config',
          type: string,
          help: 'file of kind `LeaderMigrationConfiguration`, group `controllermanager.config.svc.io`, version `v1alpha1`',
        }),
      ],
    },
    { title: 'Client', flags: clientFlags(20, 30) },
    {
      title: 'Authentication',
      flags: [
        flag({
          name: 'authentication-svcconfig',
          type: string,
          help: 'config able to create token reviews; if empty, all token requests are anonymous',
        }),
        flag({
          name: 'authentication-skip-lookup',
          type: bool,
          help: 'if false, missing auth configuration is looked up from the cluster',
        }),
        flag({
          name: 'authentication-token-webhook-cache-ttl',
          type: duration,
          default: 10_000,
          help: 'how long webhook token answers are cached',
        }),
        flag({
          name: 'authentication-tolerate-lookup-failure',
          type: bool,
          help: 'failures not fatal; may treat all requests as anonymous',
        }),
        CLIENT_CA_FLAG,
        flag({
          name: 'requestheader-client-ca-file',
          type: string,
          help: 'CA that verifies clients before trusting identity headers',
        }),
        flag({
          name: 'requestheader-allowed-names',
          type: strings,
          help: 'allowed certificate common names; empty allows any',
        }),
        flag({
          name: 'requestheader-username-headers',
          type: strings,
          default: ['x-remote-user'],
          help: 'request headers to inspect for the user name',
        }),
        flag({
          name: 'requestheader-group-headers',
          type: strings,
          default: ['x-remote-group'],
          help: 'request headers to inspect for groups',
        }),
        flag({
          name: 'requestheader-extra-headers-prefix',
          type: strings,
          default: ['x-remote-extra-'],
          help: 'request header prefixes to inspect for extra user information',
        }),
      ],
    },
    {
      title: 'Authorization',
      flags: [
        flag({
          name: 'authorization-svcconfig',
          type: string,
          help: 'config able to create access reviews; if empty all requests not skipped are forbidden',
        }),
        flag({
          name: 'authorization-always-allow-paths',
          type: strings,
          default: ['/healthz', '/readyz', '/livez'],
          help: 'paths authorized without asking the core server',
        }),
        flag({
          name: 'authorization-webhook-cache-authorized-ttl',
          type: duration,
          default: 10_000,
          help: 'how long authorized webhook answers are cached',
        }),
        flag({
          name: 'authorization-webhook-cache-unauthorized-ttl',
          type: duration,
          default: 10_000,
          help: 'how long unauthorized webhook answers are cached',
        }),
      ],
    },
    {
      title: 'Secure serving',
      flags: [
        ...SHARED_SERVING_FLAGS,
        flag({
          name: 'cert-dir',
          type: string,
          help: 'directory of the self-signed serving pair (`svc-controller-manager.crt`/`.key`) when no pair is given; empty keeps it in memory',
        }),
        flag({ name: 'secure-port', type: int, default: 10257, help: 'HTTPS port; 0 disables HTTPS', check: between(0, 65535) }),
      ],
    },
    {
      title: 'Attach/detach controller',
      flags: [
        flag({
          name: 'attach-detach-reconcile-sync-period',
          type: duration,
          default: 60_000,
          help: 'reconciler wait; must exceed one second',
          check: durationAbove(1_000),
        }),
        flag({
          name: 'disable-attach-detach-reconcile-sync',
          type: bool,
          help: 'disable the reconciler sync; may mismatch volumes and pods',
        }),
      ],
    },
    {
      title: 'CSR signing controller',
      flags: [
        flag({
          name: 'cluster-signing-cert-file',
          type: string,
          help: 'CA (PEM) for cluster-scoped certificates; if set no more specific signing flag may be set',
        }),
        flag({
          name: 'cluster-signing-key-file',
          type: string,
          help: 'CA private key (PEM, RSA or ECDSA) for cluster-scoped certificates; if set no more specific signing flag may be set',
        }),
        flag({
          name: 'cluster-signing-duration',
          type: duration,
          default: 31_536_000_000,
          help: 'maximum certificate lifetime; a request can ask shorter with `spec.expirationSeconds`',
          check: durationAbove(0),
        }),
        ...signerFiles('apiserver-client'),
        ...signerFiles('nodeagent-client'),
        ...signerFiles('nodeagent-serving'),
        ...signerFiles('legacy-unknown'),
      ],
    },
    { title: 'CronJob controller', flags: [syncs('concurrent-cron-job-syncs', 5, 'cron job')] },
    { title: 'Deployment controller', flags: [syncs('concurrent-deployment-syncs', 5, 'deployment')] },
    {
      title: 'Endpoints controller',
      flags: [
        syncs('concurrent-endpoint-syncs', 5, 'endpoints'),
        flag({ name: 'endpoint-updates-batch-period', type: duration, help: 'batching delay for endpoint updates', check: durationAtLeast(0) }),
      ],
    },
    {
      title: 'EndpointSlice controller',
      flags: [
        syncs('concurrent-service-endpoint-syncs', 5, 'service endpoint'),
        flag({
          name: 'endpointslice-updates-batch-period',
          type: duration,
          help: 'batching delay for endpoint slice updates',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'max-endpoints-per-slice',
          type: int32,
          default: 100,
          help: 'maximum endpoints added to one slice',
          check: between(1, 1000),
        }),
      ],
    },
    {
      title: 'EndpointSlice mirroring controller',
      flags: [
        syncs('mirroring-concurrent-service-endpoint-syncs', 5, 'service endpoint'),
        flag({
          name: 'mirroring-endpointslice-updates-batch-period',
          type: duration,
          help: 'batching delay for mirrored endpoint slice updates',
          check: durationAtLeast(0),
        }),
        flag({
          name: 'mirroring-max-endpoints-per-subset',
          type: int32,
          default: 1000,
          help: 'maximum endpoints mirrored per subset',
          check: atLeastOne,
        }),
      ],
    },
    { title: 'Ephemeral volume controller', flags: [syncs('concurrent-ephemeralvolume-syncs', 5, 'ephemeral volume')] },
    {
      title: 'Garbage collector controller',
      flags: [
        syncs('concurrent-gc-syncs', 20, 'garbage collector worker'),
        flag({ name: 'enable-garbage-collector', type: bool, default: true, help: 'must match the API server' }),
      ],
    },
    {
      title: 'Horizontal pod autoscaler controller',
      flags: [
        flag({
          name: 'horizontal-pod-autoscaler-cpu-initialization-period',
          type: duration,
          default: 300_000,
          help: 'period after pod start when CPU samples may be skipped',
        }),
        flag({
          name: 'horizontal-pod-autoscaler-downscale-stabilization',
          type: duration,
          default: 300_000,
          help: 'period looked back for the highest recommendation before scaling down',
        }),
        flag({
          name: 'horizontal-pod-autoscaler-initial-readiness-delay',
          type: duration,
          default: 30_000,
          help: 'period after pod start when readiness changes are treated as initial readiness',
        }),
        flag({ name: 'horizontal-pod-autoscaler-sync-period', type: duration, default: 15_000, help: 'period of syncing the number of pods' }),
        flag({
          name: 'horizontal-pod-autoscaler-tolerance',
          type: float,
          default: 0.1,
          help: 'minimum change of the desired to actual metric ratio for scaling',
        }),
      ],
    },
    {
      title: 'Namespace controller',
      flags: [
        syncs('concurrent-namespace-syncs', 10, 'namespace'),
        flag({ name: 'namespace-sync-period', type: duration, default: 300_000, help: 'period of syncing namespace life-cycle updates' }),
      ],
    },
    {
      title: 'Node IPAM controller',
      flags: [
        flag({
          name: 'node-cidr-mask-size',
          type: int32,
          help: 'mask size for node CIDRs; default 24 for IPv4 and 64 for IPv6 clusters; not for dual-stack clusters',
          check: between(1, 128),
        }),
        flag({
          name: 'node-cidr-mask-size-ipv4',
          type: int32,
          default: 24,
          help: 'mask size for IPv4 node CIDRs in dual-stack clusters',
          check: between(1, 32),
        }),
        flag({
          name: 'node-cidr-mask-size-ipv6',
          type: int32,
          default: 64,
          help: 'mask size for IPv6 node CIDRs in dual-stack clusters',
          check: between(1, 128),
        }),
        flag({
          name: 'service-cluster-ip-range',
          type: string,
          help: 'CIDR range for services (one, or an IPv4 and an IPv6 one); requires `--allocate-node-cidrs`',
          check: cidrListProblem,
        }),
      ],
    },
    {
      title: 'Node lifecycle controller',
      flags: [
        flag({
          name: 'large-cluster-size-threshold',
          type: int32,
          default: 50,
          help: 'nodes from which the cluster counts as large; secondary eviction rate is then effectively 0 for clusters this size or smaller',
        }),
        flag({ name: 'node-eviction-rate', type: float, default: 0.1, help: 'nodes per second in a healthy zone' }),
        flag({
          name: 'node-monitor-grace-period',
          type: duration,
          default: 40_000,
          help: 'unresponsive time before unhealthy; a multiple of the node agent status frequency',
        }),
        flag({
          name: 'node-startup-grace-period',
          type: duration,
          default: 60_000,
          help: 'unresponsive time allowed for a starting node before it is marked unhealthy',
        }),
        flag({ name: 'pod-eviction-timeout', type: duration, default: 300_000, help: 'grace period for deleting pods on failed nodes' }),
        flag({ name: 'secondary-node-eviction-rate', type: float, default: 0.01, help: 'unhealthy zone rate' }),
        flag({
          name: 'unhealthy-zone-threshold',
          type: float,
          default: 0.55,
          help: 'fraction of non-ready nodes (minimum 3) marking a zone unhealthy',
          check: between(0, 1),
        }),
      ],
    },
    {
      title: 'Persistent volume controller',
      flags: [
        flag({ name: 'enable-dynamic-provisioning', type: bool, default: true, help: 'enable dynamic provisioning for environments that support it' }),
        flag({ name: 'enable-hostpath-provisioner', type: bool, help: 'test-only host-path provisioning' }),
        flag({
          name: 'flex-volume-plugin-dir',
          type: string,
          default: '/usr/libexec/svc/nodeagent-plugins/volume/exec/',
          help: 'third-party volume plugin dir',
        }),
        flag({ name: 'pv-recycler-increment-timeout-nfs', type: int32, default: 30, help: 'seconds added per Gi to the NFS scrubber pod timeout' }),
        flag({ name: 'pv-recycler-minimum-timeout-hostpath', type: int32, default: 60, help: 'minimum host-path recycler pod timeout in seconds' }),
        flag({ name: 'pv-recycler-minimum-timeout-nfs', type: int32, default: 300, help: 'minimum NFS recycler pod timeout in seconds' }),
        flag({ name: 'pv-recycler-pod-template-filepath-hostpath', type: string, help: 'pod template for host-path volume recycling' }),
        flag({ name: 'pv-recycler-pod-template-filepath-nfs', type: string, help: 'pod template for NFS volume recycling' }),
        flag({ name: 'pv-recycler-timeout-increment-hostpath', type: int32, default: 30, help: 'seconds added per Gi to the host-path scrubber pod timeout' }),
        flag({ name: 'pvclaimbinder-sync-period', type: duration, default: 15_000, help: 'period of syncing persistent volumes and claims' }),
        flag({ name: 'volume-host-allow-local-loopback', type: bool, default: true, help: 'allow volume plugins to use local loopback addresses' }),
        flag({ name: 'volume-host-cidr-denylist', type: cidrs, help: 'CIDRs volume plugins avoid' }),
      ],
    },
    {
      title: 'Pod GC controller',
      flags: [
        flag({
          name: 'terminated-pod-gc-threshold',
          type: int32,
          default: 12500,
          help: 'terminated pods kept before the collector deletes them; 0 or less disables the collector',
        }),
      ],
    },
    { title: 'ReplicaSet controller', flags: [syncs('concurrent-replicaset-syncs', 5, 'replica set')] },
    { title: 'Replication controller', flags: [syncs('concurrent-rc-syncs', 5, 'replication controller')] },
    {
      title: 'Resource quota controller',
      flags: [
        syncs('concurrent-resource-quota-syncs', 5, 'resource quota'),
        flag({ name: 'resource-quota-sync-period', type: duration, default: 300_000, help: 'period of syncing quota usage' }),
      ],
    },
    {
      title: 'Service account controller',
      flags: [
        syncs('concurrent-serviceaccount-token-syncs', 5, 'service account token'),
        flag({ name: 'root-ca-file', type: string, help: 'root CA included in service account token secrets; PEM bundle' }),
        flag({ name: 'service-account-private-key-file', type: string, help: 'key that signs service account tokens' }),
      ],
    },
    { title: 'Service controller', flags: [syncs('concurrent-service-syncs', 1, 'service')] },
    { title: 'StatefulSet controller', flags: [syncs('concurrent-statefulset-syncs', 5, 'stateful set')] },
    { title: 'TTL-after-finished controller', flags: [syncs('concurrent-ttl-after-finished-syncs', 5, 'TTL-after-finished')] },
    { title: 'Feature', flags: [featureGatesFlag(CONTROLLER_MANAGER_FEATURE_GATES)] },
    { title: 'Logs', flags: [...LOG_FLAGS] },
    { title: 'Metrics', flags: [...METRICS_FLAGS] },
  ],
});

/** The controller manager's parsed options; durations in milliseconds, flags without a default undefined unless given. */
export interface ControllerManagerOptions extends OptionsOf<typeof CONTROLLER_MANAGER_FLAGS> {}
