import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeEnvelope, decodeObjectEnvelope, decodeProtobufObject, encodeProtobufObject } from './index';

/**
 * The request bodies kubectl 1.32 sent for `kubectl create ...` (recorded by testing/capture-kubectl-bodies.js).
 * Each must decode to the object kubectl meant, which is what `kubectl create ... --dry-run=client -o json`
 * prints for the same command (with its `creationTimestamp: null` left out), and re-encode to the same bytes.
 */
const bodies: Record<string, { command: string; object: Record<string, unknown> }> = {
  namespace: {
    command: 'kubectl create namespace demo',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' }, spec: {}, status: {} },
  },
  'namespace-saved': {
    command: 'kubectl create namespace saved --save-config',
    object: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'saved',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration':
            '{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"saved","creationTimestamp":null},"spec":{},"status":{}}\n',
        },
      },
      spec: {},
      status: {},
    },
  },
  secret: {
    command: 'kubectl create secret generic s --from-literal=a=b -n default',
    object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { a: 'Yg==' } },
  },
  'secret-typed': {
    command: 'kubectl create secret generic creds --type=kubernetes.io/basic-auth --from-literal=username=admin --from-literal=password=s3cr3t -n team-a',
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'team-a' },
      data: { password: 'czNjcjN0', username: 'YWRtaW4=' },
      type: 'kubernetes.io/basic-auth',
    },
  },
  'service-account': {
    command: 'kubectl create serviceaccount sa1 -n default',
    object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1', namespace: 'default' } },
  },
  service: {
    command: 'kubectl create service clusterip web --tcp=80:8080 -n default',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'web' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
  },
  'service-node-port': {
    command: 'kubectl create service nodeport np --tcp=5678:http --node-port=30080 -n default',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'np', namespace: 'default', labels: { app: 'np' } },
      spec: {
        ports: [{ name: '5678-http', protocol: 'TCP', port: 5678, targetPort: 'http', nodePort: 30080 }],
        selector: { app: 'np' },
        type: 'NodePort',
      },
      status: { loadBalancer: {} },
    },
  },
  'service-external-name': {
    command: 'kubectl create service externalname ext --external-name=example.com -n default',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext', namespace: 'default', labels: { app: 'ext' } },
      spec: { selector: { app: 'ext' }, type: 'ExternalName', externalName: 'example.com' },
      status: { loadBalancer: {} },
    },
  },
  'config-map': {
    command: 'kubectl create configmap cm --from-literal=k=v -n default',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v' } },
  },
  'config-map-binary': {
    command: 'kubectl create configmap bin --from-file=blob=<ff fe 00 80 41> --from-literal=plain=text -n default',
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bin', namespace: 'default' },
      data: { plain: 'text' },
      binaryData: { blob: Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]).toString('base64') },
    },
  },
};

function body(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(__dirname, 'testing', `${name}.bin`)));
}

describe('bodies kubectl sends', () => {
  it.each(Object.keys(bodies))('%s: reads the object kubectl meant', (name) => {
    const bytes = body(name);
    const envelope = decodeEnvelope(bytes);
    // kubectl marks a protobuf payload by leaving contentType empty.
    expect(envelope.contentType).toBe('');
    expect(decodeProtobufObject(envelope)).toEqual(bodies[name].object);
    expect(decodeObjectEnvelope(bytes)).toEqual(bodies[name].object);
  });

  it.each(Object.keys(bodies))('%s: writes the same bytes kubectl wrote', (name) => {
    const bytes = body(name);
    expect(Buffer.from(encodeProtobufObject(bodies[name].object)).toString('hex')).toBe(Buffer.from(bytes).toString('hex'));
  });
});
