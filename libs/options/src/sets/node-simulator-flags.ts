import { duration } from '../flags/duration';
import { bool } from '../flags/bool';
import { int } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { stringToString } from '../flags/string-to-string';
import { flag } from '../flag-set/flag';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf } from '../flag-set/flag-set';
import { parseFlagSet, type ParseOutcome } from '../flag-set/parse-flag-set';
import { atLeast, between, durationAbove, eachEntry, nonEmpty } from './checks';
import { clientFlags } from './common-flags';

const PROGRAM = 'svc-node-simulator';

/** `key=value:Effect` or `key:Effect`, as the node agent's `--register-with-taints` takes taints. */
export function parseTaint(text: string): { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' } {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) throw new Error(`${JSON.stringify(text)} is not key=value:Effect`);
  const effect = text.slice(colon + 1);
  if (effect !== 'NoSchedule' && effect !== 'PreferNoSchedule' && effect !== 'NoExecute') {
    throw new Error(`${JSON.stringify(effect)} is not a taint effect (NoSchedule, PreferNoSchedule, NoExecute)`);
  }
  const [key, value] = text.slice(0, colon).split('=', 2);
  if (key === '') throw new Error(`${JSON.stringify(text)} has no key`);
  return value === undefined ? { key, effect } : { key, value, effect };
}

function taintProblem(text: string): string | undefined {
  try {
    parseTaint(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Simulated nodes beside a running control plane (the part KWOK plays for Kubernetes): each registers
 * a Node, renews its Lease and plays a node agent's pod status writes. For tests and benchmarks of
 * the control plane at scale on one machine; no container runs.
 */
export const NODE_SIMULATOR_FLAGS = flagTable({
  program: PROGRAM,
  description:
    'Runs simulated nodes against an API server: each registers a Node with its capacity, labels and taints, renews its\n' +
    'Lease in svc-node-lease, and writes the status of the pods bound to it (Running, an IP, Ready) as a node agent would.',
  groups: [
    { title: 'Generic', flags: [helpFlag(PROGRAM), versionFlag()] },
    {
      title: 'Nodes',
      flags: [
        flag({ name: 'nodes', type: int, default: 1, help: 'how many nodes to run', check: between(1, 100_000) }),
        flag({ name: 'name-prefix', type: string, default: 'sim-node', help: 'nodes are named <prefix>-0, <prefix>-1, ...', check: nonEmpty }),
        flag({ name: 'node-names', type: strings, help: "the nodes' names, instead of numbered ones (their count wins over --nodes)" }),
        flag({ name: 'node-labels', type: stringToString, default: {}, help: 'labels added to every node, besides kubernetes.io/hostname, os and arch' }),
        flag({
          name: 'register-with-taints',
          type: strings,
          help: 'taints every node registers with, as key=value:Effect',
          check: eachEntry(taintProblem),
        }),
        flag({
          name: 'capacity',
          type: stringToString,
          default: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          help: 'capacity and allocatable of every node',
        }),
        flag({ name: 'zones', type: strings, help: 'zones the nodes are spread over, round robin (topology.kubernetes.io/zone)' }),
      ],
    },
    {
      title: 'Node agent behaviour',
      flags: [
        flag({
          name: 'node-lease-duration-seconds',
          type: int,
          default: 40,
          help: "the Lease's duration; it is renewed every quarter of it",
          check: atLeast(1),
        }),
        flag({
          name: 'node-status-report-frequency',
          type: duration,
          default: 300_000,
          help: 'how often a node posts its status though nothing changed',
          check: durationAbove(0),
        }),
        flag({ name: 'concurrency', type: int, default: 8, help: 'pod status writes in flight at once', check: atLeast(1) }),
        flag({ name: 'delete-nodes-on-exit', type: bool, default: false, help: 'delete the Nodes and Leases on SIGTERM (else they stay, as after a crash)' }),
      ],
    },
    { title: 'Client', flags: clientFlags(50, 100) },
  ],
});

export interface NodeSimulatorOptions extends OptionsOf<typeof NODE_SIMULATOR_FLAGS> {}

export const nodeSimulatorFlagSet = defineFlagSet(NODE_SIMULATOR_FLAGS, []);

export function parseNodeSimulatorOptions(argv: readonly string[]): ParseOutcome<NodeSimulatorOptions> {
  return parseFlagSet(nodeSimulatorFlagSet, argv);
}
