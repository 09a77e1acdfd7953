import { builtinScheme, type ApiObject } from '@svc/api';
import type { AdmissionAttributes } from './admission';
import { defaultTolerationSeconds } from './default-toleration-seconds';
import { taintNodesByCondition } from './taint-nodes-by-condition';

const scheme = builtinScheme();
const pods = scheme.byResource({ group: '', version: 'v1', resource: 'pods' })!;
const nodes = scheme.byResource({ group: '', version: 'v1', resource: 'nodes' })!;

function attributes(definition: typeof pods, object: ApiObject, overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', definition, namespace: '', name: 'x', subresource: '', object, dryRun: false, ...overrides };
}

describe('DefaultTolerationSeconds', () => {
  const plugin = defaultTolerationSeconds({ notReadySeconds: 30, unreachableSeconds: 5 });

  it('adds the not-ready and unreachable NoExecute tolerations a pod lacks', async () => {
    const pod: ApiObject = { spec: { containers: [], tolerations: [{ key: 'dedicated', operator: 'Exists' }] } };
    await plugin.admit!(attributes(pods, pod));
    expect((pod.spec as { tolerations: unknown[] }).tolerations).toEqual([
      { key: 'dedicated', operator: 'Exists' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
    ]);
  });

  it('leaves a pod that already tolerates them, by key or by an empty key, and leaves subresources alone', async () => {
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 600 };
    const pod: ApiObject = { spec: { containers: [], tolerations: [own] } };
    await plugin.admit!(attributes(pods, pod));
    expect((pod.spec as { tolerations: unknown[] }).tolerations).toEqual([own, expect.objectContaining({ key: 'node.kubernetes.io/not-ready' })]);
    const everything: ApiObject = { spec: { containers: [], tolerations: [{ operator: 'Exists' }] } };
    await plugin.admit!(attributes(pods, everything));
    expect((everything.spec as { tolerations: unknown[] }).tolerations).toEqual([{ operator: 'Exists' }]);
    const status: ApiObject = { spec: { containers: [] } };
    await plugin.admit!(attributes(pods, status, { subresource: 'status', operation: 'UPDATE' }));
    expect(status.spec).toEqual({ containers: [] });
  });

  it('passes malformed tolerations on to validation untouched', async () => {
    const pod: ApiObject = { spec: { containers: [], tolerations: 'none' } };
    await plugin.admit!(attributes(pods, pod));
    expect((pod.spec as { tolerations: unknown }).tolerations).toBe('none');
  });
});

describe('TaintNodesByCondition', () => {
  const plugin = taintNodesByCondition();

  it('gives a new node the not-ready NoSchedule taint, once', async () => {
    const node: ApiObject = { metadata: { name: 'n' }, spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } };
    await plugin.admit!(attributes(nodes, node));
    await plugin.admit!(attributes(nodes, node));
    expect((node.spec as { taints: unknown[] }).taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    ]);
    const bare: ApiObject = { metadata: { name: 'm' } };
    await plugin.admit!(attributes(nodes, bare));
    expect(bare.spec).toEqual({ taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
  });

  it('leaves updates and other kinds alone', async () => {
    const node: ApiObject = { metadata: { name: 'n' }, spec: {} };
    await plugin.admit!(attributes(nodes, node, { operation: 'UPDATE' }));
    expect(node.spec).toEqual({});
    const pod: ApiObject = { spec: {} };
    await plugin.admit!(attributes(pods, pod));
    expect(pod.spec).toEqual({});
  });
});
