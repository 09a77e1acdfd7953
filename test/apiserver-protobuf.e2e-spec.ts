import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeEnvelope, decodeKubernetesMessage, decodeProtobufObject, encodeProtobufObject } from '@svc/machinery';
import { ApiClient } from './support/api-client';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// Kubernetes' protobuf on the real API server process: bodies kubectl sends in it keep every field,
// and a client asking for it gets Kubernetes' messages (gets, lists, watch frames), read here with
// the codec that reproduces Kubernetes' own fixtures byte for byte.

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'protobuf-e2e';

interface BinaryResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<BinaryResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { method, headers, ca: server.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads a protobuf watch stream's frames until `count` arrived. */
function watchFrames(path: string, count: number): Promise<{ headers: IncomingHttpHeaders; frames: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { headers: { Accept: PROTOBUF }, ca: server.ca, agent: false }, (res) => {
      let buffered = Buffer.alloc(0);
      const frames: Buffer[] = [];
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`only ${frames.length} frames of ${count}`));
      }, 15_000);
      res.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const size = buffered.readUInt32BE(0);
          frames.push(buffered.subarray(4, 4 + size));
          buffered = buffered.subarray(4 + size);
        }
        if (frames.length >= count) {
          clearTimeout(timer);
          req.destroy();
          resolve({ headers: res.headers, frames });
        }
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: full
  labels: { app: full }
spec:
  securityContext:
    runAsUser: 1000
    fsGroup: 2000
    supplementalGroups: [3000]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - { key: kubernetes.io/os, operator: In, values: [linux] }
  volumes:
  - name: data
    emptyDir: { sizeLimit: 64Mi }
  - name: settings
    configMap: { name: settings, defaultMode: 420 }
  - name: token
    projected:
      sources:
      - serviceAccountToken: { path: token, expirationSeconds: 3607 }
  containers:
  - name: app
    image: registry.example/app:1.0
    securityContext:
      allowPrivilegeEscalation: false
      capabilities: { drop: [ALL] }
    livenessProbe:
      httpGet: { path: /healthz, port: 8080 }
      periodSeconds: 7
    readinessProbe:
      tcpSocket: { port: http }
    startupProbe:
      exec: { command: [cat, /tmp/ready] }
    resources:
      limits: { cpu: 500m, memory: 128Mi }
    ports:
    - { name: http, containerPort: 8080 }
    envFrom:
    - configMapRef: { name: settings }
    volumeMounts:
    - { name: data, mountPath: /data }
    - { name: settings, mountPath: /etc/settings, readOnly: true }
    - { name: token, mountPath: /var/run/token }
`;

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  expect((await client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

type Pod = { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } };

describe('Kubernetes protobuf requests', () => {
  it('keeps every field of a pod kubectl debug --copy-to sends as protobuf', async () => {
    const file = join(server.dir, 'full-pod.yaml');
    await writeFile(file, podManifest);
    const created = await runKubectl(['-n', ns, 'create', '-f', file], server.kubectlEnv);
    expect(created.stderr).toBe('');
    const debug = await runKubectl(['-n', ns, 'debug', 'full', '--copy-to=full-debug', '--image=busybox', '--container=debugger'], server.kubectlEnv);
    expect(debug.stderr).not.toContain('Not found');
    expect(debug.code).toBe(0);
    const original = (await client.get<Pod>(`/api/v1/namespaces/${ns}/pods/full`)).body;
    const copy = (await client.get<Pod>(`/api/v1/namespaces/${ns}/pods/full-debug`)).body;
    for (const field of ['volumes', 'affinity', 'securityContext']) expect(copy.spec[field]).toEqual(original.spec[field]);
    expect(copy.spec.containers[0]).toEqual(original.spec.containers[0]);
    expect(copy.spec.containers.map((c) => c.name)).toEqual(['app', 'debugger']);
  }, 60_000);
});

describe('Kubernetes protobuf answers', () => {
  it('answers a get in Kubernetes protobuf, the same object as the JSON answer', async () => {
    const json = (await client.get<Record<string, unknown>>(`/api/v1/namespaces/${ns}/pods/full`)).body;
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods/full`, { Accept: PROTOBUF });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const envelope = decodeEnvelope(res.body);
    // The object's own message, not JSON in the envelope.
    expect([envelope.apiVersion, envelope.kind, envelope.contentType]).toEqual(['v1', 'Pod', '']);
    expect(envelope.raw[0]).toBe(0x0a); // field 1, ObjectMeta
    const decoded = decodeProtobufObject(envelope);
    expect(decoded).toEqual(json);
    // And those bytes are exactly what Kubernetes' marshaller writes for that object.
    expect(Buffer.from(encodeProtobufObject(json)).equals(res.body)).toBe(true);
  });

  it('answers a list as the XxxList message', async () => {
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods`, { Accept: `${PROTOBUF}, application/json` });
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const envelope = decodeEnvelope(res.body);
    expect([envelope.apiVersion, envelope.kind]).toEqual(['v1', 'PodList']);
    const list = decodeProtobufObject(envelope) as { metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string } }> };
    expect(list.items.map((p) => p.metadata.name).sort()).toEqual(['full', 'full-debug']);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it('streams a watch as length-prefixed WatchEvent messages, each object in its own envelope', async () => {
    const watching = watchFrames(`/api/v1/namespaces/${ns}/configmaps?watch=1`, 2);
    await new Promise((r) => setTimeout(r, 300));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { a: '1' } };
    // Sent in protobuf too: the body is Kubernetes' ConfigMap message.
    const created = await call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      Buffer.from(encodeProtobufObject(cm)),
    );
    expect(created.status).toBe(201);
    await eventually(async () =>
      expect((await client.patch(`/api/v1/namespaces/${ns}/configmaps/watched`, 'application/merge-patch+json', { data: { a: '2' } })).status).toBe(200),
    );
    const stream = await watching;
    expect(stream.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
    const events = stream.frames.map((frame) => decodeKubernetesMessage('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', frame));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    const objects = events.map((e) => e.object as { kind: string; data: Record<string, string> });
    expect(objects.map((o) => [o.kind, o.data.a])).toEqual([
      ['ConfigMap', '1'],
      ['ConfigMap', '2'],
    ]);
    // The frame is the raw message (no envelope prefix); the embedded object is an envelope.
    expect(stream.frames[0].subarray(0, 4).toString('hex')).not.toBe('6b387300');
  }, 30_000);

  it('answers errors as a protobuf Status', async () => {
    const res = await call('GET', `/api/v1/namespaces/${ns}/pods/absent`, { Accept: PROTOBUF });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const status = decodeProtobufObject(decodeEnvelope(res.body));
    expect(status).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('keeps custom resources in JSON: 406 when only protobuf is accepted, JSON when JSON is accepted too', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await client.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const path = `/apis/example.com/v1/namespaces/${ns}/widgets`;
    await eventually(async () => expect((await client.post(path, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).status).toBe(201));
    const only = await call('GET', path, { Accept: PROTOBUF });
    expect(only.status).toBe(406);
    const both = await call('GET', path, { Accept: `${PROTOBUF}, application/json` });
    expect(both.status).toBe(200);
    expect(both.headers['content-type']).toBe('application/json');
    expect((JSON.parse(both.body.toString('utf8')) as { kind: string }).kind).toBe('WidgetList');
  }, 30_000);
});
