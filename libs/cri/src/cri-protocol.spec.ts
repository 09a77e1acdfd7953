import { criMessage } from './cri-protocol';
import { grpcTarget } from './cri-client';
import { fullImageName } from './node-runtime';

describe('CRI messages', () => {
  it('encode camelCase objects with the field numbers of the protocol and decode them back', () => {
    const type = criMessage('CreateContainerRequest');
    const request = {
      podSandboxId: 'abc',
      config: {
        metadata: { name: 'main', attempt: 2 },
        image: { image: 'busybox:1.36' },
        envs: [{ key: 'A', value: Buffer.from('b') }],
        labels: { 'svc.io/pod-uid': 'u' },
        linux: { resources: { memoryLimitInBytes: 64 * 1024 * 1024, cpuShares: 512 } },
      },
    };
    const bytes = type.encode(type.fromObject(request)).finish();
    // Field 1 (pod_sandbox_id), length-delimited: tag byte 0x0a.
    expect(bytes[0]).toBe(0x0a);
    const decoded = type.toObject(type.decode(bytes), { longs: Number, enums: String });
    expect(decoded.podSandboxId).toBe('abc');
    expect(decoded.config.metadata).toEqual({ name: 'main', attempt: 2 });
    expect(Buffer.from(decoded.config.envs[0].value as Uint8Array).toString()).toBe('b');
    expect(decoded.config.linux.resources).toEqual({ memoryLimitInBytes: 67108864, cpuShares: 512 });
  });

  it('decode enums by name', () => {
    const type = criMessage('ContainerStatus');
    const decoded = type.toObject(type.decode(type.encode(type.fromObject({ id: 'x', state: 'CONTAINER_EXITED', exitCode: 3 })).finish()), {
      enums: String,
    });
    expect(decoded).toMatchObject({ id: 'x', state: 'CONTAINER_EXITED', exitCode: 3 });
  });
});

describe('grpcTarget', () => {
  it('takes a path or a unix URL', () => {
    expect(grpcTarget('/run/containerd/containerd.sock')).toBe('unix:///run/containerd/containerd.sock');
    expect(grpcTarget('unix:///run/x.sock')).toBe('unix:///run/x.sock');
  });
});

describe('fullImageName', () => {
  it('completes names as a Docker-compatible runtime does', () => {
    expect(fullImageName('busybox:1.36')).toBe('docker.io/library/busybox:1.36');
    expect(fullImageName('busybox')).toBe('docker.io/library/busybox:latest');
    expect(fullImageName('me/app:1')).toBe('docker.io/me/app:1');
    expect(fullImageName('svc.local/pause:1.0')).toBe('svc.local/pause:1.0');
    expect(fullImageName('localhost:5000/app')).toBe('localhost:5000/app:latest');
  });
});
