import { compileKind, podDefinition, type Container, type Pod } from '@svc/api';
import { CFS_PERIOD_US, linuxResources, milliCpuToQuota, milliCpuToShares, podCgroupParent, qosCgroup } from './container-resources';
import { computePodStatus } from '../pods/pod-status';

const GIB = 1024 ** 3;
const options = { cfsQuota: true, memoryCapacityBytes: 8 * GIB };

function container(resources?: Container['resources']): Container {
  return { name: 'c', image: 'busybox', ...(resources ? { resources } : {}) };
}

function pod(containers: Container[], status?: Pod['status']): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers }, ...(status ? { status } : {}) };
}

/** The pod as the API server stores it on create: defaulted, then the strategy's PrepareForCreate. */
function created(p: Pod): Pod {
  compileKind(podDefinition).default(p);
  podDefinition.strategy.prepareForCreate?.(p);
  return p;
}

function statusClass(p: Pod): string | undefined {
  const inputs = { latest: new Map(), previous: new Map() };
  return computePodStatus({
    pod: p,
    observed: inputs,
    facts: new Map(),
    messages: new Map(),
    podIPs: [],
    hostIPs: ['10.0.0.1'],
    terminating: false,
    now: new Date(0),
  }).qosClass;
}

describe('container resources', () => {
  it('turns CPU into shares and a CFS quota as Kubernetes does', () => {
    expect(milliCpuToShares(0)).toBe(2);
    expect(milliCpuToShares(1)).toBe(2);
    expect(milliCpuToShares(250)).toBe(256);
    expect(milliCpuToShares(1000)).toBe(1024);
    expect(milliCpuToShares(1_000_000)).toBe(262144);
    expect(milliCpuToQuota(0)).toBe(0);
    expect(milliCpuToQuota(5)).toBe(1000);
    expect(milliCpuToQuota(500)).toBe(50_000);
    expect(milliCpuToQuota(1500, 50_000)).toBe(75_000);
  });

  it('gives a Guaranteed container its limits, a quota and the lowest OOM score', () => {
    const c = container({ requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    expect(linuxResources(pod([c], { qosClass: 'Guaranteed' }), c, options)).toEqual({
      cpuShares: 512,
      oomScoreAdj: -997,
      memoryLimitInBytes: 256 * 1024 ** 2,
      cpuPeriod: CFS_PERIOD_US,
      cpuQuota: 50_000,
    });
  });

  it('scores a Burstable container by its memory request, and a BestEffort one last', () => {
    const half = container({ requests: { memory: '4Gi' } });
    expect(linuxResources(pod([half], { qosClass: 'Burstable' }), half, options)).toEqual({ cpuShares: 2, oomScoreAdj: 500 });
    const huge = container({ requests: { memory: '16Gi' } });
    expect(linuxResources(pod([huge], { qosClass: 'Burstable' }), huge, options).oomScoreAdj).toBe(2);
    const tiny = container({ requests: { cpu: '100m' } });
    expect(linuxResources(pod([tiny], { qosClass: 'Burstable' }), tiny, options).oomScoreAdj).toBe(999);
    const none = container();
    expect(linuxResources(pod([none], { qosClass: 'BestEffort' }), none, options)).toEqual({ cpuShares: 2, oomScoreAdj: 1000 });
  });

  it('sets no quota when cpuCFSQuota is off, and takes the CPU request from the limit when there is none', () => {
    const c = container({ limits: { cpu: '2' } });
    expect(linuxResources(pod([c]), c, { ...options, cfsQuota: false })).toEqual({ cpuShares: 2048, oomScoreAdj: expect.any(Number) });
  });

  it('places pods below kubepods by QoS class, under the cgroup root', () => {
    expect(qosCgroup('', 'Guaranteed')).toBe('/kubepods');
    expect(qosCgroup('/', 'Burstable')).toBe('/kubepods/burstable');
    expect(qosCgroup('/agent/', 'BestEffort')).toBe('/agent/kubepods/besteffort');
    expect(podCgroupParent(pod([container()], { qosClass: 'BestEffort' }), '/agent', true)).toBe('/agent/kubepods/besteffort/podu1');
    expect(podCgroupParent(pod([container()]), '/agent', false)).toBe('');
  });
});

describe('the QoS class, computed once', () => {
  it('puts the pod in the cgroup of the class the API server stored at creation, and reports that class', () => {
    // Written as 700m and 0.7: one amount, so the pod is Guaranteed, as Kubernetes' Quantity.Cmp says.
    const p = created(pod([container({ requests: { cpu: '700m', memory: '64Mi' }, limits: { cpu: '0.7', memory: '64Mi' } })]));
    expect(p.status?.qosClass).toBe('Guaranteed');
    expect(podCgroupParent(p, '', true)).toBe('/kubepods/podu1');
    expect(statusClass(p)).toBe('Guaranteed');
  });

  it('keeps the stored class, whatever the spec would compute now', () => {
    const guaranteedSpec = container({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } });
    const p = pod([guaranteedSpec], { phase: 'Pending', qosClass: 'Burstable' });
    expect(podCgroupParent(p, '', true)).toBe('/kubepods/burstable/podu1');
    expect(linuxResources(p, guaranteedSpec, options).oomScoreAdj).not.toBe(-997);
    expect(statusClass(p)).toBe('Burstable');
  });

  it('computes the class from the spec, init containers counted, for a pod that never went through the API server (a static pod)', () => {
    const equal = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
    const p = { ...pod([container(equal)]), spec: { containers: [container(equal)], initContainers: [{ ...container(), name: 'init' }] } };
    expect(podCgroupParent(p, '', true)).toBe('/kubepods/burstable/podu1');
    expect(statusClass(p)).toBe('Burstable');
  });
});
