import { parseDualStackCidrs } from '../flags/cidr';
import { defineFlagSet, type Problem, type Rule } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { CLUSTER_SIGNERS, CONTROLLER_MANAGER_FLAGS, type ControllerManagerOptions } from './controller-manager-flags';
import { givenTogether, leaderElectionDurations } from './shared-rules';

type ControllerManagerRule = Rule<ControllerManagerOptions>;

/**
 * Kubernetes dropped --pod-eviction-timeout with taint-based eviction: a pod leaves a failed node when
 * its toleration of the node's NoExecute taint runs out. Accepting it would promise what no code does.
 */
const podEvictionTimeout: ControllerManagerRule = (_, given) =>
  given.has('pod-eviction-timeout')
    ? {
        flag: 'pod-eviction-timeout',
        reason:
          'has no effect under taint-based eviction and is not supported: pods leave a failed node when their toleration of its ' +
          'node.kubernetes.io/not-ready or node.kubernetes.io/unreachable NoExecute taint runs out; set the default with the API ' +
          "server's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds, or a pod's own tolerationSeconds",
      }
    : undefined;

const SIGNER_FLAGS = CLUSTER_SIGNERS.flatMap((s) => [`cluster-signing-${s}-cert-file`, `cluster-signing-${s}-key-file`]);

const clusterSigningExclusive: ControllerManagerRule = (o, given) => {
  const general = ['cluster-signing-cert-file', 'cluster-signing-key-file'].find((f) => given.has(f));
  const specific = SIGNER_FLAGS.find((f) => given.has(f));
  return general && specific ? { flag: specific, reason: `cannot be set together with --${general}` } : undefined;
};

const signerPairs: readonly ControllerManagerRule[] = [
  givenTogether('cluster-signing-cert-file', 'cluster-signing-key-file'),
  ...CLUSTER_SIGNERS.map((s) => givenTogether(`cluster-signing-${s}-cert-file`, `cluster-signing-${s}-key-file`)),
];

const needsNodeCidrAllocation: ControllerManagerRule = (o) => {
  if (o.allocateNodeCidrs) return undefined;
  if (o.clusterCidr) return { flag: 'cluster-cidr', reason: 'requires --allocate-node-cidrs' };
  if (o.serviceClusterIpRange) return { flag: 'service-cluster-ip-range', reason: 'requires --allocate-node-cidrs' };
  return undefined;
};

/** Mask sizes as Kubernetes' node IPAM resolves them, checked against the cluster CIDRs. */
const nodeCidrMaskSizes: ControllerManagerRule = (o, given) => {
  const single = given.has('node-cidr-mask-size');
  const perFamily = ['node-cidr-mask-size-ipv4', 'node-cidr-mask-size-ipv6'].find((f) => given.has(f));
  if (single && perFamily) {
    return { flag: perFamily, reason: 'cannot be used with --node-cidr-mask-size; for dual-stack clusters use only the per-family flags' };
  }
  if (!o.clusterCidr) return undefined;
  const cluster = parseDualStackCidrs(o.clusterCidr);
  if (single && cluster.length > 1) {
    return { flag: 'node-cidr-mask-size', reason: 'is not allowed with a dual-stack --cluster-cidr; use --node-cidr-mask-size-ipv4 and -ipv6' };
  }
  for (const cidr of cluster) {
    const flagName = single ? 'node-cidr-mask-size' : cidr.family === 'IPv4' ? 'node-cidr-mask-size-ipv4' : 'node-cidr-mask-size-ipv6';
    const mask = single ? (o.nodeCidrMaskSize ?? 0) : cidr.family === 'IPv4' ? o.nodeCidrMaskSizeIpv4 : o.nodeCidrMaskSizeIpv6;
    const problem: Problem = { flag: flagName, value: String(mask), reason: '' };
    if (cidr.family === 'IPv4' && mask > 32) return { ...problem, reason: `must be at most 32 for the IPv4 cluster CIDR ${cidr.text}` };
    if (mask < cidr.prefixLength) {
      return { ...problem, reason: `must not be smaller than the prefix length of the cluster CIDR ${cidr.text}` };
    }
  }
  return undefined;
};

/** The node IPAM controller allocates from one IPv4 range, as Kubernetes needs a range to allocate from at all. */
const nodeIpamRange: ControllerManagerRule = (o) => {
  if (!o.allocateNodeCidrs) return undefined;
  if (!o.clusterCidr) return { flag: 'allocate-node-cidrs', value: 'true', reason: 'requires --cluster-cidr' };
  if (parseDualStackCidrs(o.clusterCidr).some((c) => c.family !== 'IPv4')) {
    return { flag: 'cluster-cidr', value: o.clusterCidr, reason: 'node CIDRs are allocated from one IPv4 range only (no IPv6 or dual-stack allocation)' };
  }
  return undefined;
};

const externalCloudVolumePlugin: ControllerManagerRule = (o) =>
  o.externalCloudVolumePlugin && o.cloudProvider !== 'external'
    ? { flag: 'external-cloud-volume-plugin', reason: 'is only used with --cloud-provider=external' }
    : undefined;

/** Cross-flag rules of the controller manager, checked in this order after every flag parsed. */
const CONTROLLER_MANAGER_RULES: readonly ControllerManagerRule[] = [
  givenTogether('tls-cert-file', 'tls-private-key-file'),
  leaderElectionDurations,
  clusterSigningExclusive,
  ...signerPairs,
  needsNodeCidrAllocation,
  nodeCidrMaskSizes,
  nodeIpamRange,
  externalCloudVolumePlugin,
  podEvictionTimeout,
];

export const controllerManagerFlagSet = defineFlagSet(CONTROLLER_MANAGER_FLAGS, CONTROLLER_MANAGER_RULES);

/** Parses the controller manager's argv (without node and script). Throws FlagError with a one-line message. */
export function parseControllerManagerOptions(argv: readonly string[]): ParseOutcome<ControllerManagerOptions> {
  return parseFlagSet(controllerManagerFlagSet, argv);
}
