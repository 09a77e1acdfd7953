import { decodeEnvelope, decodeProtobufObject, decodeWatchEvent, encodeProtobufObject, encodeWatchEvent, EnvelopeError, protobufUnknownFields } from './index';

describe('watch events', () => {
  it('writes the WatchEvent message with the object in its own envelope, and reads it back', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '5' }, data: { a: 'b' } };
    const bytes = encodeWatchEvent('MODIFIED', configMap);
    // type (field 1) "MODIFIED", then object (field 2) holding raw (field 1) = the envelope.
    expect(Buffer.from(bytes.subarray(0, 10)).toString('hex')).toBe('0a084d4f444946494544');
    expect(decodeWatchEvent(bytes)).toEqual({ type: 'MODIFIED', object: configMap });
  });

  it('embeds an object of a kind with no message as its JSON, and reads that too', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } };
    expect(decodeWatchEvent(encodeWatchEvent('ADDED', widget))).toEqual({ type: 'ADDED', object: widget });
  });

  it('refuses a message without a type or an object', () => {
    expect(() => decodeWatchEvent(new Uint8Array([0x0a, 0x05, 0x41, 0x44, 0x44, 0x45, 0x44]))).toThrow(EnvelopeError);
  });
});

describe('fields newer than the table release', () => {
  it('carries the fields Kubernetes added after 1.32 that the served schemas have', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'r' },
      spec: { selector: {}, template: { spec: { containers: [{ name: 'a', image: 'i', lifecycle: { stopSignal: 'SIGUSR1' } }] } } },
      status: { replicas: 2, terminatingReplicas: 0 },
    };
    const back = decodeProtobufObject(decodeEnvelope(encodeProtobufObject(rs))) as typeof rs;
    expect(back.status.terminatingReplicas).toBe(0);
    expect(back.spec.template.spec.containers[0].lifecycle.stopSignal).toBe('SIGUSR1');
    expect(protobufUnknownFields(rs)).toEqual([]);
  });

  it('writes a newer value field only when it is set, so that a 1.32 object keeps its bytes', () => {
    const pod = (condition: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      status: { conditions: [{ type: 'Ready', status: 'True', ...condition }] },
    });
    const without = Buffer.from(encodeProtobufObject(pod({})));
    expect(Buffer.from(encodeProtobufObject(pod({ observedGeneration: 0 }))).equals(without)).toBe(true);
    const set = encodeProtobufObject(pod({ observedGeneration: 3 }));
    expect(set.length).toBe(without.length + 2);
    expect(
      (decodeProtobufObject(decodeEnvelope(set)) as { status: { conditions: Array<{ observedGeneration?: number }> } }).status.conditions[0].observedGeneration,
    ).toBe(3);
  });

  it('names the fields a message has no place for', () => {
    expect(protobufUnknownFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', bogus: 1 }, data: {}, extra: true })).toEqual([
      'metadata.bogus',
      'extra',
    ]);
    expect(protobufUnknownFields({ apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'a', imagePullPolicyy: 'Always' }] } })).toEqual([
      'spec.containers[0].imagePullPolicyy',
    ]);
  });
});
