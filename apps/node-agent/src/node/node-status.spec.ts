import type { StatusResponse } from '@svc/cri';
import type { HostUsage } from './host-facts';
import { nodeStatus, statusSignature, type NodeStatusInputs } from './node-status';

const GIB = 1024 ** 3;
const NOW = new Date('2027-03-01T12:00:00.000Z');

const healthy: HostUsage = {
  memory: { total: 8 * GIB, available: 6 * GIB },
  filesystem: { capacity: 100 * GIB, available: 60 * GIB },
  pids: { running: 300, max: 32768 },
};

const runtimeReady: StatusResponse = {
  status: {
    conditions: [
      { type: 'RuntimeReady', status: true, reason: '', message: '' },
      { type: 'NetworkReady', status: true, reason: '', message: '' },
    ],
  },
};

function inputs(extra: Partial<NodeStatusInputs> = {}): NodeStatusInputs {
  return {
    host: {
      machineID: 'm',
      systemUUID: 'u',
      bootID: 'b',
      kernelVersion: '6.1.0',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      operatingSystem: 'linux',
      architecture: 'amd64',
      cpus: 4,
      hostname: 'n1',
    },
    usage: healthy,
    runtimeVersion: { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: '1.6.20', runtimeApiVersion: 'v1' },
    runtimeStatus: runtimeReady,
    agentVersion: 'v1.32.0-svc',
    rootDir: '/var/lib/svc-node-agent',
    maxPods: 110,
    systemReserved: {},
    svcReserved: {},
    addresses: [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'n1' },
    ],
    port: 10250,
    images: [],
    maxImages: 50,
    now: NOW,
    ...extra,
  };
}

const condition = (status: ReturnType<typeof nodeStatus>, type: string) => status.conditions?.find((c) => c.type === type);

describe('the Node status the agent reports', () => {
  it('gives capacity from the host and allocatable less systemReserved and svcReserved', () => {
    const status = nodeStatus(
      inputs({ systemReserved: { cpu: '100m', memory: '100Mi' }, svcReserved: { cpu: '400m', memory: '156Mi', 'ephemeral-storage': '1Gi' } }),
    );
    expect(status.capacity).toEqual({
      cpu: '4',
      memory: `${8 * 1024 * 1024}Ki`,
      pods: '110',
      'ephemeral-storage': `${100 * 1024 * 1024}Ki`,
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    });
    expect(status.allocatable).toEqual({
      cpu: '3500m',
      memory: `${8 * 1024 * 1024 - 256 * 1024}Ki`,
      pods: '110',
      'ephemeral-storage': String(99 * GIB),
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    });
    expect(nodeStatus(inputs({ systemReserved: { cpu: '1' } })).allocatable?.cpu).toBe('3');
  });

  it('is Ready with no pressure on a healthy host whose runtime and network are ready', () => {
    const status = nodeStatus(inputs());
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['MemoryPressure', 'False', 'NodeAgentHasSufficientMemory'],
      ['DiskPressure', 'False', 'NodeAgentHasNoDiskPressure'],
      ['PIDPressure', 'False', 'NodeAgentHasSufficientPID'],
      ['Ready', 'True', 'NodeAgentReady'],
    ]);
    expect(condition(status, 'Ready')).toMatchObject({ message: 'node agent is posting ready status', lastHeartbeatTime: '2027-03-01T12:00:00Z' });
  });

  it.each<[string, Partial<HostUsage>, string, string]>([
    ['less than 100 MiB of memory available', { memory: { total: 8 * GIB, available: 50 * 1024 * 1024 } }, 'MemoryPressure', 'NodeAgentHasInsufficientMemory'],
    ['less than a tenth of the root filesystem free', { filesystem: { capacity: 100 * GIB, available: 9 * GIB } }, 'DiskPressure', 'NodeAgentHasDiskPressure'],
    ['more than 90% of the pids in use', { pids: { running: 30_000, max: 32768 } }, 'PIDPressure', 'NodeAgentHasInsufficientPID'],
  ])('reports pressure with %s', (_what, usage, type, reason) => {
    expect(condition(nodeStatus(inputs({ usage: { ...healthy, ...usage } })), type)).toMatchObject({ status: 'True', reason });
  });

  it('is not Ready while the runtime is down, its network is not ready, or its status is not known yet', () => {
    expect(condition(nodeStatus(inputs({ runtimeError: 'connection refused' })), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NodeAgentNotReady',
      message: 'container runtime is down: connection refused',
    });
    const networkDown: StatusResponse = {
      status: {
        conditions: [
          { type: 'RuntimeReady', status: true, reason: '', message: '' },
          { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'cni config uninitialized' },
        ],
      },
    };
    expect(condition(nodeStatus(inputs({ runtimeStatus: networkDown })), 'Ready')?.message).toBe(
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni config uninitialized',
    );
    expect(condition(nodeStatus(inputs({ runtimeStatus: undefined })), 'Ready')?.message).toBe('container runtime status check may not have completed yet');
  });

  it('keeps the transition time of a condition that did not change, and moves it for one that did', () => {
    const earlier = nodeStatus(inputs({ now: new Date('2027-03-01T11:00:00Z') }));
    const later = nodeStatus(inputs({ previous: earlier, usage: { ...healthy, pids: { running: 32000, max: 32768 } } }));
    expect(condition(later, 'Ready')?.lastTransitionTime).toBe('2027-03-01T11:00:00Z');
    expect(condition(later, 'PIDPressure')?.lastTransitionTime).toBe('2027-03-01T12:00:00Z');
  });

  it('reports node info, the daemon endpoint and the largest images first, at most maxImages', () => {
    const images = [
      { id: 'a', size: 10, repoTags: ['small:1'] },
      { id: 'b', size: 30, repoTags: ['big:1'], repoDigests: ['big@sha256:1'] },
      { id: 'c', size: 20, repoTags: ['mid:1'] },
    ];
    const status = nodeStatus(inputs({ images, maxImages: 2 }));
    expect(status.images).toEqual([
      { names: ['big@sha256:1', 'big:1'], sizeBytes: 30 },
      { names: ['mid:1'], sizeBytes: 20 },
    ]);
    expect(nodeStatus(inputs({ images, maxImages: -1 })).images).toHaveLength(3);
    expect(nodeStatus(inputs()).images).toBeUndefined();
    expect(status.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect(status.nodeInfo).toMatchObject({ containerRuntimeVersion: 'containerd://1.6.20', kubeletVersion: 'v1.32.0-svc', architecture: 'amd64' });
  });

  it('signs a status without its heartbeat times: a new heartbeat alone is no change', () => {
    const first = nodeStatus(inputs());
    const second = nodeStatus(inputs({ previous: first, now: new Date('2027-03-01T12:00:10Z') }));
    expect(statusSignature(second)).toBe(statusSignature(first));
    expect(statusSignature(nodeStatus(inputs({ previous: first, runtimeError: 'down' })))).not.toBe(statusSignature(first));
  });
});
