import { bool } from '../flags/bool';
import { float } from '../flags/float';
import { int32 } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { atLeast, eachEntry, ipAddressOrBlank } from './checks';

const PROGRAM = 'svc-node-agent';

/**
 * The node agent's flags: what its configuration file (spec 3, `--config`) does not hold — the
 * API server connection, the node's name and address, the runtime's socket and local directories.
 */
export const NODE_AGENT_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'The node agent runs on each node: it registers the Node, renews its lease, and runs the pods bound to it\n' +
    'in containers through the Container Runtime Interface.',
  groups: [
    {
      title: 'Generic',
      flags: [
        helpFlag(PROGRAM),
        versionFlag(),
        flag({ name: 'config', type: string, help: 'NodeAgentConfiguration file (spec 3); every field has its default when absent' }),
        flag({ name: 'svcconfig', type: string, help: 'client connection file (kubeconfig format) of the API server' }),
        flag({
          name: 'bootstrap-kubeconfig',
          type: string,
          help: 'connection file with a bootstrap token: when --svcconfig is missing or its certificate expired, a client certificate is requested with it and --svcconfig written',
        }),
        flag({ name: 'master', type: string, help: 'API server address, overrides the connection file; several (comma-separated) are tried in turn' }),
        flag({ name: 'svc-api-qps', type: float, help: 'requests per second to the API server; overrides svcAPIQPS of the file', check: atLeast(0) }),
        flag({ name: 'svc-api-burst', type: int32, help: 'burst to the API server; overrides svcAPIBurst of the file', check: atLeast(0) }),
        flag({ name: 'hostname-override', type: string, help: 'the node name, instead of the host name' }),
        flag({
          name: 'node-ip',
          type: strings,
          help: 'IP addresses of the node (one per family) reported as InternalIP; the first non-loopback address by default',
          check: eachEntry((ip) => ipAddressOrBlank(ip) as string | undefined),
        }),
        flag({
          name: 'container-runtime-endpoint',
          type: string,
          default: 'unix:///run/containerd/containerd.sock',
          help: 'CRI endpoint of the container runtime',
        }),
        flag({
          name: 'root-dir',
          type: string,
          default: '/var/lib/svc-node-agent',
          help: "directory of the agent state: pod volumes, container logs (pod-logs/), the node agent's own files",
        }),
        flag({
          name: 'cert-dir',
          type: string,
          default: '/var/lib/svc-node-agent/pki',
          help: 'where a self-signed serving pair is generated when the file names none',
        }),
        flag({
          name: 'image-credential-provider-config',
          type: string,
          help: 'CredentialProviderConfig file (spec 3) of the credential provider exec plugins',
        }),
        flag({ name: 'image-credential-provider-bin-dir', type: string, help: 'directory holding the credential provider plugins named in that file' }),
        flag({
          name: 'local-path-provisioner',
          type: bool,
          default: true,
          help: 'provision the claims of StorageClasses whose provisioner is svc.io/local-path as directories of this node; false leaves them to another provisioner',
        }),
        flag({
          name: 'local-path-dir',
          type: string,
          help: 'where the local path provisioner makes volumes when their class names no nodePath; <root-dir>/local-path-volumes by default',
        }),
      ],
    },
  ],
});

export interface NodeAgentFlags extends OptionsOf<typeof NODE_AGENT_FLAGS> {}

export const nodeAgentFlagSet = defineFlagSet(NODE_AGENT_FLAGS, [
  (o) =>
    o.bootstrapKubeconfig && !o.svcconfig ? { flag: 'bootstrap-kubeconfig', reason: '--svcconfig is required with it: the bootstrap writes it' } : undefined,
  (o) =>
    o.imageCredentialProviderConfig && !o.imageCredentialProviderBinDir
      ? { flag: 'image-credential-provider-config', reason: '--image-credential-provider-bin-dir is required with it' }
      : undefined,
]);

/** Parses the node agent's argv (without node and script). Throws FlagError with a one-line message. */
export function parseNodeAgentFlags(argv: readonly string[]): ParseOutcome<NodeAgentFlags> {
  return parseFlagSet(nodeAgentFlagSet, argv);
}
