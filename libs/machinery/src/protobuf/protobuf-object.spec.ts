import {
  EnvelopeError,
  decodeEnvelope,
  decodeObjectEnvelope,
  decodeProtobufObject,
  encodeEnvelope,
  encodeObjectEnvelope,
  encodeProtobufObject,
  protobufKinds,
} from './index';
import { thrownBy } from '../testing/thrown-by';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const utf8Hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

function roundTrip(object: Record<string, unknown>): Record<string, unknown> {
  return decodeProtobufObject(decodeEnvelope(encodeProtobufObject(object)));
}

const envelopeError = (run: () => unknown): EnvelopeError => thrownBy(run, EnvelopeError);

const fullMetadata = {
  name: 'web',
  generateName: 'web-',
  namespace: 'team-a',
  selfLink: '/api/v1/namespaces/team-a/things/web',
  uid: '6f1c2b8e-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 2 ** 40, // beyond 32 bits: int64 survives as a number
  creationTimestamp: '2024-01-02T03:04:05Z',
  deletionTimestamp: '1969-12-31T23:59:59Z', // before the epoch: negative seconds
  deletionGracePeriodSeconds: 0, // a pointer: zero is kept
  labels: { b: '2', a: '1' },
  annotations: { 'example.com/note': 'héllo ✓' },
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u-1', controller: true, blockOwnerDeletion: false },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', uid: 'u-2' },
  ],
  finalizers: ['example.com/a', 'example.com/b'],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-01-02T03:04:06Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      subresource: 'status',
    },
    { manager: 'apply', operation: 'Apply' },
  ],
};

describe('protobuf objects', () => {
  it('lists the kinds it reads', () => {
    expect(protobufKinds()).toEqual(
      expect.arrayContaining([
        { apiVersion: 'v1', kind: 'Namespace' },
        { apiVersion: 'v1', kind: 'Secret' },
        { apiVersion: 'v1', kind: 'ServiceAccount' },
        { apiVersion: 'v1', kind: 'Service' },
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { apiVersion: 'v1', kind: 'Status' },
      ]),
    );
  });

  it('round-trips a Namespace with every metadata field', () => {
    const namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: fullMetadata,
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          { type: 'NamespaceDeletionContentFailure', status: 'True', lastTransitionTime: '2030-06-07T08:09:10Z', reason: 'R', message: 'm' },
          { type: 'NamespaceContentRemaining', status: 'False' },
        ],
      },
    };
    expect(roundTrip(namespace)).toEqual(namespace);
  });

  it('round-trips a Secret: bytes as base64, string data, type and a false pointer', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      data: { bin: Buffer.from([0, 1, 0xfe, 0xff]).toString('base64'), empty: '', text: Buffer.from('b').toString('base64') },
      stringData: { plain: 'text' },
      type: 'kubernetes.io/basic-auth',
      immutable: false,
    };
    expect(roundTrip(secret)).toEqual(secret);
  });

  it('round-trips a ConfigMap with data and binary data', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'default', labels: { app: 'x' } },
      data: { 'a.txt': 'line 1\nline 2', empty: '' },
      binaryData: { blob: Buffer.from([0xff, 0x00, 0x80]).toString('base64') },
      immutable: true,
    };
    expect(roundTrip(configMap)).toEqual(configMap);
  });

  it('round-trips a ServiceAccount with references', () => {
    const serviceAccount = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa', namespace: 'default' },
      secrets: [{ kind: 'Secret', namespace: 'default', name: 'tok', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'data' }, { name: 'other' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    };
    expect(roundTrip(serviceAccount)).toEqual(serviceAccount);
  });

  it('round-trips a Service: int-or-string ports, nested pointers, status with conditions', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080, appProtocol: 'http' },
          { name: 'dns', protocol: 'UDP', port: 53, targetPort: 'dns' },
          { port: 0, targetPort: 0 }, // port has no omitempty; a set zero target stays
        ],
        selector: { app: 'web' },
        clusterIP: '10.0.0.10',
        clusterIPs: ['10.0.0.10', 'fd00::10'],
        type: 'LoadBalancer',
        externalIPs: ['192.0.2.1'],
        sessionAffinity: 'ClientIP',
        loadBalancerIP: '198.51.100.1',
        loadBalancerSourceRanges: ['198.51.100.0/24'],
        externalName: 'web.example.com',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 32000,
        publishNotReadyAddresses: true,
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
        ipFamilies: ['IPv4', 'IPv6'],
        ipFamilyPolicy: 'PreferDualStack',
        allocateLoadBalancerNodePorts: false,
        loadBalancerClass: 'example.com/lb',
        internalTrafficPolicy: 'Cluster',
        trafficDistribution: 'PreferClose',
      },
      status: {
        loadBalancer: {
          ingress: [{ ip: '203.0.113.5', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }] }, { hostname: 'lb.example.com' }],
        },
        conditions: [{ type: 'Ready', status: 'True', observedGeneration: 3, lastTransitionTime: '2024-02-29T23:59:59Z', reason: 'Ok', message: '' }],
      },
    };
    expect(roundTrip(service)).toEqual(service);
  });

  it('round-trips a Status with details and list metadata', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: { resourceVersion: '5', continue: 'token', remainingItemCount: 0 },
      status: 'Failure',
      message: 'services "x" not found',
      reason: 'NotFound',
      details: {
        name: 'x',
        group: 'apps',
        kind: 'services',
        uid: 'u',
        causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.x' }],
        retryAfterSeconds: 1,
      },
      code: 404,
    };
    expect(roundTrip(status)).toEqual(status);
  });

  it('leaves out zero values and empty collections, as Go omitempty does', () => {
    const decoded = roundTrip({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: '', generation: 0, labels: {}, finalizers: [], ownerReferences: [{ name: 'o' }] },
      spec: { ports: [{ name: '', port: 80 }], clusterIP: '', publishNotReadyAddresses: false, selector: {} },
    });
    expect(decoded).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      // OwnerReference's four strings have no omitempty in Kubernetes; a port without targetPort gets Go's zero value.
      metadata: { name: 'web', ownerReferences: [{ apiVersion: '', kind: '', name: 'o', uid: '' }] },
      spec: { ports: [{ port: 80, targetPort: 0 }] },
      status: { loadBalancer: {} },
    });
  });

  it('writes times to the second, dropping fractions and converting offsets to UTC', () => {
    const decoded = roundTrip({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', creationTimestamp: '2024-01-02T05:04:05.123456789+02:00' },
    });
    expect(decoded.metadata).toEqual({ name: 'c', creationTimestamp: '2024-01-02T03:04:05Z' });
  });

  it('uses Kubernetes field numbers and wire types', () => {
    const bytes = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', deletionGracePeriodSeconds: 30, creationTimestamp: '1970-01-01T00:01:40Z' },
      type: 'Opaque',
      immutable: true,
      data: { k: Buffer.from([0xff]).toString('base64') },
      stringData: { z: 'y' },
    });
    const envelope = decodeEnvelope(bytes);
    expect(envelope).toMatchObject({ apiVersion: 'v1', kind: 'Secret', contentType: '', contentEncoding: '' });
    const metadata = [
      '0a0173', // 1 name "s"
      '1200', // 2 generateName ""
      '1a00', // 3 namespace ""
      '2200', // 4 selfLink ""
      '2a00', // 5 uid ""
      '3200', // 6 resourceVersion ""
      '3800', // 7 generation 0
      '4204', // 8 creationTimestamp, 4 bytes:
      '0864', // Time.seconds 100
      '1000', // Time.nanos 0, always written (Timestamp's nanos is a Go value)
      '501e', // 10 deletionGracePeriodSeconds 30
    ].join('');
    const secret = [
      '0a' + (metadata.length / 2).toString(16).padStart(2, '0') + metadata, // 1 metadata
      '1206' + '0a016b' + '1201ff', // 2 data entry: key "k", bytes ff
      '1a06' + utf8Hex('Opaque'), // 3 type
      '2206' + '0a017a' + '120179', // 4 stringData entry: "z" -> "y"
      '2801', // 5 immutable true
    ].join('');
    expect(hex(envelope.raw)).toBe(secret);
  });

  it('writes int-or-string as Kubernetes does: type, intVal, strVal', () => {
    const service = (targetPort: number | string) =>
      decodeEnvelope(encodeProtobufObject({ apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 1, targetPort }] } })).raw;
    // ServicePort: 3 port 1, 4 targetPort {1 type, 2 intVal, 3 strVal}, 5 nodePort 0
    expect(hex(service(8080))).toContain('1801' + '2207' + '0800' + '10903f' + '1a00' + '2800');
    expect(hex(service('http'))).toContain('1801' + '220a' + '0801' + '1000' + '1a04' + utf8Hex('http') + '2800');
  });

  it('refuses kinds it has no message for, as an unsupported media type', () => {
    const widget = encodeEnvelope({ apiVersion: 'example.com/v1', kind: 'Widget', raw: new Uint8Array([0x0a, 0x00]) });
    const error = envelopeError(() => decodeObjectEnvelope(widget));
    expect(error.kind).toBe('UnsupportedMediaType');
    expect(error.message).toContain('Widget');
    expect(envelopeError(() => decodeProtobufObject(decodeEnvelope(widget))).kind).toBe('UnsupportedMediaType');
    expect(envelopeError(() => encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Widget' })).kind).toBe('UnsupportedMediaType');
    const wrongGroup = encodeEnvelope({ apiVersion: 'example.com/v1', kind: 'Secret', raw: new Uint8Array(0) });
    expect(envelopeError(() => decodeObjectEnvelope(wrongGroup)).kind).toBe('UnsupportedMediaType');
  });

  it('refuses malformed messages as bad requests', () => {
    const truncated = encodeEnvelope({ apiVersion: 'v1', kind: 'Namespace', raw: new Uint8Array([0x0a, 0x05, 0x0a, 0x01]) });
    expect(envelopeError(() => decodeObjectEnvelope(truncated)).kind).toBe('BadRequest');
    // Namespace{metadata: ObjectMeta{managedFields (17): [{fieldsV1 (7): {Raw: "{"}}]}}: not JSON.
    const broken = encodeEnvelope({ apiVersion: 'v1', kind: 'Namespace', raw: Buffer.from('0a08' + '8a0105' + '3a03' + '0a017b', 'hex') });
    expect(envelopeError(() => decodeObjectEnvelope(broken)).message).toContain('fieldsV1');
  });

  it('refuses JSON values of the wrong type when encoding', () => {
    const error = envelopeError(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: '80' }] } }));
    expect(error.kind).toBe('BadRequest');
    expect(error.message).toContain('spec.ports[0].port');
    expect(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { creationTimestamp: 'yesterday' } })).toThrow(EnvelopeError);
  });

  it('still reads JSON payloads, and refuses other payload types as unsupported', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    expect(decodeObjectEnvelope(encodeObjectEnvelope(configMap))).toEqual(configMap);
    expect(decodeObjectEnvelope(encodeProtobufObject(configMap))).toEqual(configMap);
    const yaml = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: new Uint8Array(0), contentType: 'application/yaml' });
    expect(envelopeError(() => decodeObjectEnvelope(yaml)).kind).toBe('UnsupportedMediaType');
  });
});
