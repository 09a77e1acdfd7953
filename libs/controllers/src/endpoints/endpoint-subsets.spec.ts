import type { EndpointAddress, EndpointSubset, Pod, Service } from '@svc/api';
import { desiredSubsets, findPort, podIPForService, repackSubsets, shouldPodBeInEndpoints, subsetsEqual, truncateSubsets } from './endpoint-subsets';
import { podEndpointsChanged } from './pod-endpoint-changes';
import { formatTriggerTime, TriggerTimeTracker } from './trigger-time-tracker';

function pod(
  name: string,
  extra: {
    ip?: string;
    ready?: boolean;
    phase?: string;
    deleting?: boolean;
    ports?: Array<{ name?: string; containerPort: number; protocol?: 'TCP' | 'UDP' }>;
  } = {},
): Pod {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(extra.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'c', image: 'i', ...(extra.ports ? { ports: extra.ports } : {}) }] },
    status: {
      phase: (extra.phase ?? 'Running') as 'Running',
      ...(extra.ip ? { podIP: extra.ip } : {}),
      conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    },
  };
}

const addr = (ip: string, name = ip): EndpointAddress => ({ ip, targetRef: { kind: 'Pod', name, uid: name } });

describe('endpoint subsets', () => {
  it('includes pods with an IP that are neither finished nor (unless publishing not-ready) being deleted', () => {
    expect(shouldPodBeInEndpoints(pod('a', { ip: '10.0.0.1' }), false)).toBe(true);
    expect(shouldPodBeInEndpoints(pod('a'), false)).toBe(false);
    expect(shouldPodBeInEndpoints(pod('a', { ip: '10.0.0.1', phase: 'Failed' }), true)).toBe(false);
    expect(shouldPodBeInEndpoints(pod('a', { ip: '10.0.0.1', deleting: true }), false)).toBe(false);
    expect(shouldPodBeInEndpoints(pod('a', { ip: '10.0.0.1', deleting: true }), true)).toBe(true);
  });

  it('resolves target ports: numbers as is, names by container port name and protocol', () => {
    const p = pod('a', {
      ports: [
        { name: 'dns', containerPort: 53, protocol: 'UDP' },
        { name: 'http', containerPort: 8080 },
      ],
    });
    expect(findPort(p, { port: 80, targetPort: 9000 })).toBe(9000);
    expect(findPort(p, { port: 80 })).toBe(80);
    expect(findPort(p, { port: 80, targetPort: 'http' })).toBe(8080);
    expect(findPort(p, { port: 53, targetPort: 'dns' })).toBeUndefined();
    expect(findPort(p, { port: 53, targetPort: 'dns', protocol: 'UDP' })).toBe(53);
    const sidecar: Pod = {
      ...p,
      spec: { ...p.spec, initContainers: [{ name: 's', image: 'i', restartPolicy: 'Always', ports: [{ name: 'proxy', containerPort: 15001 }] }] },
    };
    expect(findPort(sidecar, { port: 1, targetPort: 'proxy' })).toBe(15001);
  });

  it("picks the pod IP of the service's family", () => {
    const dual: Pod = { ...pod('a', { ip: '10.0.0.1' }), status: { podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] } };
    expect(podIPForService({ spec: { clusterIP: 'None' } }, dual)).toBe('10.0.0.1');
    expect(podIPForService({ spec: { ipFamilies: ['IPv6'] } }, dual)).toBe('fd00::1');
    expect(podIPForService({ spec: { clusterIP: 'fd00:1::10' } }, pod('b', { ip: '10.0.0.2' }))).toBeUndefined();
  });

  it('repacks per-pod subsets: the ports served by the same addresses share one subset, not-ready wins', () => {
    const packed = repackSubsets([
      { addresses: [addr('10.0.0.2')], ports: [{ name: 'a', port: 80 }] },
      { addresses: [addr('10.0.0.1')], ports: [{ name: 'a', port: 80 }] },
      { addresses: [addr('10.0.0.1')], ports: [{ name: 'b', port: 81 }] },
      { addresses: [addr('10.0.0.2')], ports: [{ name: 'b', port: 81 }] },
      { notReadyAddresses: [addr('10.0.0.3')], ports: [{ name: 'a', port: 8080 }] },
      { addresses: [addr('10.0.0.4')], ports: [{ name: 'a', port: 80 }] },
      { notReadyAddresses: [addr('10.0.0.4')], ports: [{ name: 'a', port: 80 }] },
    ]);
    expect(packed).toEqual([
      { addresses: [addr('10.0.0.1'), addr('10.0.0.2')], notReadyAddresses: [addr('10.0.0.4')], ports: [{ name: 'a', port: 80 }] },
      { addresses: [addr('10.0.0.1'), addr('10.0.0.2')], ports: [{ name: 'b', port: 81 }] },
      { notReadyAddresses: [addr('10.0.0.3')], ports: [{ name: 'a', port: 8080 }] },
    ]);
    expect(repackSubsets([{ addresses: [addr('10.0.0.1')] }, { addresses: [addr('10.0.0.2')] }])).toEqual([
      { addresses: [addr('10.0.0.1'), addr('10.0.0.2')] },
    ]);
  });

  it('builds one entry per pod and resolved port, ready or not, or all ready when publishing not-ready addresses', () => {
    const service: Service = { metadata: { name: 'web', namespace: 'ns' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] } };
    const pods = [
      pod('a', { ip: '10.0.0.1', ports: [{ name: 'http', containerPort: 8080 }] }),
      pod('b', { ip: '10.0.0.2', ready: false, ports: [{ name: 'http', containerPort: 8080 }] }),
    ];
    expect(desiredSubsets(service, pods)).toEqual([
      {
        addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'uid-a' } }],
        notReadyAddresses: [{ ip: '10.0.0.2', targetRef: { kind: 'Pod', namespace: 'ns', name: 'b', uid: 'uid-b' } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
    const published = desiredSubsets({ ...service, spec: { ...service.spec, publishNotReadyAddresses: true } }, pods);
    expect(published[0].addresses).toHaveLength(2);
    expect(published[0].notReadyAddresses).toBeUndefined();
    // A service that is not headless and has no ports gets nothing.
    expect(desiredSubsets({ metadata: { name: 'web' }, spec: {} }, pods)).toEqual([]);
  });

  it('compares subsets semantically', () => {
    const a: EndpointSubset[] = [{ addresses: [addr('10.0.0.1'), addr('10.0.0.2')], ports: [{ port: 80, protocol: 'TCP' }] }];
    const b: EndpointSubset[] = [
      {
        addresses: [addr('10.0.0.2'), { ...addr('10.0.0.1'), targetRef: { ...addr('10.0.0.1').targetRef, resourceVersion: '7' } }],
        notReadyAddresses: [],
        ports: [{ port: 80, protocol: 'TCP' }],
      },
    ];
    expect(subsetsEqual(a, b)).toBe(true);
    expect(subsetsEqual([], undefined)).toBe(true);
    expect(subsetsEqual(a, [{ ...a[0], ports: [{ port: 81, protocol: 'TCP' }] }])).toBe(false);
    expect(subsetsEqual(a, [{ notReadyAddresses: a[0].addresses, ports: a[0].ports }])).toBe(false);
  });

  it('truncates above capacity: not-ready addresses first, then ready ones, proportionally', () => {
    const ips = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => addr(`${prefix}.${i}`));
    const notReadyCut = truncateSubsets([{ addresses: ips(6, 'r'), notReadyAddresses: ips(6, 'n') }], 10);
    expect(notReadyCut.truncated).toBe(true);
    expect(notReadyCut.subsets[0].addresses).toHaveLength(6);
    expect(notReadyCut.subsets[0].notReadyAddresses).toHaveLength(4);
    const readyCut = truncateSubsets([{ addresses: ips(9, 'a') }, { addresses: ips(3, 'b'), notReadyAddresses: ips(2, 'n') }], 8);
    expect(readyCut.subsets.map((s) => [s.addresses?.length, s.notReadyAddresses?.length])).toEqual([
      [6, undefined],
      [2, undefined],
    ]);
    expect(truncateSubsets([{ addresses: ips(10, 'a') }], 10).truncated).toBe(false);
  });
});

describe('pod changes that matter to endpoints', () => {
  it('are changes of labels, readiness, IP, deletion and phase, not other status writes', () => {
    const base = { ...pod('a', { ip: '10.0.0.1' }), metadata: { name: 'a', resourceVersion: '1', labels: { app: 'x' } } };
    const next = (change: Partial<Pod>) => ({ ...base, ...change, metadata: { ...base.metadata, resourceVersion: '2', ...(change.metadata ?? {}) } });
    expect(podEndpointsChanged(base, next({ status: { ...base.status, message: 'hello' } }))).toBe(false);
    expect(podEndpointsChanged(base, next({ metadata: { labels: { app: 'y' } } }))).toBe(true);
    expect(podEndpointsChanged(base, next({ status: { ...base.status, podIP: '10.0.0.2' } }))).toBe(true);
    expect(podEndpointsChanged(base, next({ status: { ...base.status, conditions: [{ type: 'Ready', status: 'False' }] } }))).toBe(true);
    expect(podEndpointsChanged(base, next({ status: { ...base.status, phase: 'Failed' } }))).toBe(true);
    expect(podEndpointsChanged(base, next({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }))).toBe(true);
    expect(podEndpointsChanged(base, { ...base, metadata: { ...base.metadata, labels: { app: 'z' } } })).toBe(false);
  });
});

describe('the last change trigger time', () => {
  const service: Service = { metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' } };
  const readyAt = (name: string, at: string): Pod => ({
    metadata: { name },
    spec: { containers: [] },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] },
  });

  it("is the service's creation first, then the earliest pod transition not yet reflected", () => {
    const tracker = new TriggerTimeTracker();
    const a1 = readyAt('a', '2024-01-01T00:01:00Z');
    expect(formatTriggerTime(tracker.compute('ns/web', service, [a1]))).toBe('2024-01-01T00:00:00Z');
    expect(tracker.compute('ns/web', service, [a1])).toBe(0);
    const b = readyAt('b', '2024-01-01T00:03:00Z');
    const a2 = readyAt('a', '2024-01-01T00:02:00Z');
    expect(formatTriggerTime(tracker.compute('ns/web', service, [a2, b]))).toBe('2024-01-01T00:02:00Z');
    tracker.forget('ns/web');
    expect(formatTriggerTime(tracker.compute('ns/web', service, [a2, b]))).toBe('2024-01-01T00:00:00Z');
    expect(formatTriggerTime(Date.parse('2024-01-01T00:00:00.120Z'))).toBe('2024-01-01T00:00:00.12Z');
  });
});
