import { parseNodeSimulatorOptions } from '@svc/options';
import { nodeSpecs } from './node-specs';

function specs(...argv: string[]) {
  const outcome = parseNodeSimulatorOptions(argv);
  if (outcome.action !== 'run') throw new Error('expected run');
  return nodeSpecs(outcome.options);
}

describe('svc-node-simulator flags', () => {
  it('number the nodes, spread them over zones, and give each the labels, taints and capacity', () => {
    const nodes = specs(
      '--nodes=3',
      '--name-prefix=w',
      '--zones=a,b',
      '--node-labels=disk=ssd',
      '--register-with-taints=gpu=yes:NoSchedule,soft:PreferNoSchedule',
      '--capacity=cpu=2,pods=5',
    );
    expect(nodes.map((n) => n.name)).toEqual(['w-0', 'w-1', 'w-2']);
    expect(nodes.map((n) => n.labels?.['topology.kubernetes.io/zone'])).toEqual(['a', 'b', 'a']);
    expect(nodes[0]).toMatchObject({
      labels: { disk: 'ssd' },
      taints: [
        { key: 'gpu', value: 'yes', effect: 'NoSchedule' },
        { key: 'soft', effect: 'PreferNoSchedule' },
      ],
      capacity: { cpu: '2', pods: '5' },
    });
  });

  it('take names when given, and refuse malformed taints', () => {
    expect(specs('--node-names=x,y').map((n) => n.name)).toEqual(['x', 'y']);
    expect(() => parseNodeSimulatorOptions(['--register-with-taints=bad'])).toThrow(/key=value:Effect/);
    expect(() => parseNodeSimulatorOptions(['--register-with-taints=k=v:Sometimes'])).toThrow(/not a taint effect/);
  });
});
