import type { ServerResponse } from 'node:http';
import { decodeEnvelope, decodeProtobufObject, encodeProtobufObject, encodeWatchEvent, isNotFound, StatusError } from '@svc/machinery';
import { Client } from './client';
import { resolveClientConfig, wireFormatOf } from './client-config';
import { ProtobufStreamDecoder, ProtobufStreamError } from './protobuf-stream-decoder';
import { json, ScriptedServer, status } from './testing/scripted-server';
import { decodeAnswer, hasProtobufForm, protobufBody } from './wire-codec';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const ACCEPT = 'application/vnd.kubernetes.protobuf, application/json';

const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'd', resourceVersion: '7', uid: 'u-1', creationTimestamp: '2024-01-02T03:04:05Z' },
  data,
});

const protobuf =
  (code: number, object: Record<string, unknown>) =>
  (_req: unknown, res: ServerResponse): void => {
    res.writeHead(code, { 'Content-Type': PROTOBUF }).end(Buffer.from(encodeProtobufObject(object)));
  };

/** One frame of a protobuf watch stream: the 4-byte length, then the WatchEvent message. */
function frame(type: string, object: Record<string, unknown>): Buffer {
  const event = Buffer.from(encodeWatchEvent(type, object));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

describe('the content type setting', () => {
  it('means JSON for application/json and nothing set, protobuf for either protobuf name, and refuses anything else', () => {
    expect(wireFormatOf(undefined)).toBe('json');
    expect(wireFormatOf('application/json')).toBe('json');
    expect(wireFormatOf('application/vnd.svc.protobuf')).toBe('protobuf');
    expect(wireFormatOf('application/vnd.kubernetes.protobuf')).toBe('protobuf');
    expect(() => resolveClientConfig({ server: 'https://h', contentType: 'application/yaml' })).toThrow(
      'content type "application/yaml" is not supported; use one of application/json, application/vnd.svc.protobuf, application/vnd.kubernetes.protobuf',
    );
  });
});

describe('which objects travel as protobuf', () => {
  it('built-in kinds with a message, under either group name, and meta kinds; never a custom resource', () => {
    expect(hasProtobufForm('v1', 'Pod')).toBe(true);
    expect(hasProtobufForm('coordination.svc.io/v1', 'Lease')).toBe(true);
    expect(hasProtobufForm('coordination.k8s.io/v1', 'Lease')).toBe(true);
    expect(hasProtobufForm('v1', 'DeleteOptions')).toBe(true);
    expect(hasProtobufForm('example.com/v1', 'Widget')).toBe(false);
    // meta/v1's kinds are registered in Kubernetes' own group versions only, not in a custom group.
    expect(hasProtobufForm('example.com/v1', 'Status')).toBe(false);
    // A custom resource definition is a built-in kind with a message; the resources it defines are not.
    expect(hasProtobufForm('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toBe(true);
    expect(hasProtobufForm('apiextensions.svc.io/v1', 'CustomResourceDefinition')).toBe(true);
  });

  it('sends JSON for an object with a field its message has no place for, or a value that does not encode', () => {
    expect(protobufBody(configMap('a'))).toBeInstanceOf(Buffer);
    expect(protobufBody({ ...configMap('a'), extra: { x: 1 } })).toBeUndefined();
    expect(protobufBody({ ...configMap('a'), metadata: { name: 'a', labels: 7 } })).toBeUndefined();
    expect(protobufBody({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toBeUndefined();
  });

  it('gives list items back the apiVersion and kind the protobuf list leaves out', () => {
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [configMap('a'), configMap('b')] };
    const bytes = Buffer.from(encodeProtobufObject(list));
    // The message itself carries no type meta per item.
    expect((decodeProtobufObject(decodeEnvelope(bytes)).items as Array<Record<string, unknown>>)[0].kind).toBeUndefined();
    expect(decodeAnswer(bytes, PROTOBUF)).toEqual(list);
    expect(decodeAnswer(Buffer.from(JSON.stringify(list)), 'application/json')).toEqual(list);
  });
});

describe('a protobuf client against a scripted server', () => {
  let server: ScriptedServer;
  let client: Client;

  beforeEach(async () => {
    server = new ScriptedServer();
    client = new Client({ server: await server.listen(), qps: -1, contentType: 'application/vnd.svc.protobuf' });
  });

  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('sends a built-in object as Kubernetes protobuf and reads the protobuf answer', async () => {
    const created = configMap('a');
    server.script(protobuf(201, created));
    const answer = await client.configMaps.create({ metadata: { name: 'a', namespace: 'd' }, data: { a: '1' } });
    expect(answer).toEqual(created);
    const [req] = server.requests;
    expect(req.headers['content-type']).toBe(PROTOBUF);
    expect(req.headers.accept).toBe(ACCEPT);
    expect(decodeProtobufObject(decodeEnvelope(req.raw))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'd' },
      data: { a: '1' },
    });
  });

  it('reads a JSON answer to a protobuf request, as a server without the message sends it', async () => {
    server.script(json(200, configMap('a')));
    expect(await client.configMaps.get('a', { namespace: 'd' })).toEqual(configMap('a'));
    expect(server.requests[0].headers.accept).toBe(ACCEPT);
  });

  it('reads a protobuf Status of an error into its StatusError', async () => {
    server.script(protobuf(404, { ...status(404, 'NotFound', 'configmaps "x" not found'), details: { name: 'x', kind: 'configmaps' } }));
    const err = await client.configMaps.get('x', { namespace: 'd' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe('configmaps "x" not found');
    expect((err as StatusError).status.details).toEqual({ name: 'x', kind: 'configmaps' });
  });

  it('sends patches as JSON, asking for protobuf back; custom resources stay JSON', async () => {
    server.always((req, res) => {
      if (req.url?.includes('widgets')) json(200, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })(req, res, '');
      else protobuf(200, configMap('a'))(req, res);
    });
    await client.configMaps.patch('a', { data: { a: '2' } }, 'merge', { namespace: 'd' });
    const widgets = client.dynamic({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' });
    await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'd' } });
    await widgets.get('w', { namespace: 'd' });
    const [patch, create, get] = server.requests;
    expect([patch.headers['content-type'], patch.headers.accept, patch.body]).toEqual(['application/merge-patch+json', ACCEPT, '{"data":{"a":"2"}}']);
    expect([create.headers['content-type'], create.headers.accept]).toEqual(['application/json', 'application/json']);
    expect(get.headers.accept).toBe('application/json');
  });

  it("reads metadata-only views in protobuf for any resource, as client-go's metadata client does", async () => {
    const list = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '9' },
      items: [{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'w', namespace: 'd', uid: 'u-2' } }],
    };
    server.script((_req, res) =>
      res.writeHead(200, { 'Content-Type': `${PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io` }).end(Buffer.from(encodeProtobufObject(list))),
    );
    const widgets = client.dynamic({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' });
    expect(await widgets.metadataOnly().list({ namespace: 'd' })).toEqual(list);
    expect(server.requests[0].headers.accept).toBe(
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    );
  });

  it('sends DeleteOptions in protobuf and reads the Status answer', async () => {
    server.script(protobuf(200, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', details: { name: 'a', kind: 'configmaps' } }));
    const answer = await client.configMaps.delete('a', { namespace: 'd', gracePeriodSeconds: 0, preconditions: { uid: 'u-1' } });
    expect(answer).toMatchObject({ kind: 'Status', status: 'Success' });
    const [req] = server.requests;
    expect(req.headers['content-type']).toBe(PROTOBUF);
    expect(decodeProtobufObject(decodeEnvelope(req.raw))).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u-1' },
    });
  });

  it('decodes a protobuf watch split anywhere, several frames to a chunk, and throws an ERROR event as its Status', async () => {
    const stream = Buffer.concat([
      frame('ADDED', configMap('a')),
      frame('MODIFIED', configMap('a', { a: '2' })),
      frame('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '12' } }),
      frame('ERROR', { ...status(410, 'Expired', 'too old resource version'), apiVersion: 'v1' }),
    ]);
    server.script((_req, res) => {
      res.writeHead(200, { 'Content-Type': `${PROTOBUF};stream=watch` });
      // Cut inside a length prefix, inside a message, and between frames.
      for (const [from, to] of [
        [0, 2],
        [2, 40],
        [40, stream.length - 7],
        [stream.length - 7, stream.length],
      ])
        res.write(stream.subarray(from, to));
      res.end();
    });
    const watch = await client.configMaps.watch({ namespace: 'd', resourceVersion: '7' });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const event of watch) seen.push(`${event.type} ${event.object.data?.a ?? ''} ${event.object.metadata?.resourceVersion}`);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['ADDED 1 7', 'MODIFIED 2 7', 'BOOKMARK  12']);
    expect((err as StatusError).status.reason).toBe('Expired');
    expect(watch.resourceVersion).toBe('12');
    expect(server.requests[0].headers.accept).toBe(ACCEPT);
  });
});

describe('ProtobufStreamDecoder', () => {
  it('refuses a frame longer than its bound before buffering it', () => {
    const decoder = new ProtobufStreamDecoder(1024);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1025);
    expect(() => decoder.push(header)).toThrow(ProtobufStreamError);
  });

  it('refuses a frame that is not a WatchEvent', () => {
    const decoder = new ProtobufStreamDecoder();
    const bad = Buffer.from([0, 0, 0, 2, 0x0a, 0x05]);
    expect(() => decoder.push(bad)).toThrow(ProtobufStreamError);
  });

  it('says a frame is pending when the stream stops inside one', () => {
    const decoder = new ProtobufStreamDecoder();
    const whole = frame('ADDED', configMap('a'));
    expect(decoder.push(whole.subarray(0, 10))).toEqual([]);
    expect(decoder.pending).toBe(true);
    expect(decoder.push(whole.subarray(10))).toHaveLength(1);
    expect(decoder.pending).toBe(false);
  });
});
