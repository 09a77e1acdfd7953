import { encodeEnvelope } from '@svc/machinery';
import { Writer } from 'protobufjs';
import { decodeObjectBody } from './body-decoder';

/** A length-delimited field holding what `build` writes (Go writes every non-pointer field, empty ones too). */
function message(writer: Writer, field: number, build: (w: Writer) => void): void {
  writer.uint32((field << 3) | 2).fork();
  build(writer);
  writer.ldelim();
}

function str(writer: Writer, field: number, value: string): void {
  writer.uint32((field << 3) | 2).string(value);
}

function int(writer: Writer, field: number, value: number): void {
  writer.uint32(field << 3).int64(value);
}

function entry(writer: Writer, field: number, key: string, value: string): void {
  message(writer, field, (w) => {
    str(w, 1, key);
    str(w, 2, value);
  });
}

function objectMeta(w: Writer, name: string, labels: Record<string, string> = {}): void {
  str(w, 1, name);
  for (const field of [2, 3, 4, 5, 6]) str(w, field, '');
  int(w, 7, 0);
  message(w, 8, () => undefined);
  for (const [k, v] of Object.entries(labels)) entry(w, 11, k, v);
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  return Buffer.from(encodeEnvelope({ apiVersion, kind, raw }));
}

describe('Kubernetes protobuf request bodies', () => {
  it('reads a Namespace as kubectl create namespace sends it, dropping the empty fields', async () => {
    const w = Writer.create();
    message(w, 1, (m) => objectMeta(m, 'team'));
    message(w, 2, () => undefined);
    const body = envelope('v1', 'Namespace', w.finish());
    expect((await decodeObjectBody(body, 'application/vnd.kubernetes.protobuf')).value).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team' },
      spec: {},
      status: {},
    });
  });

  it('reads a Deployment, keeping zero values of pointer fields and IntOrString targets', async () => {
    const w = Writer.create();
    message(w, 1, (m) => objectMeta(m, 'web', { app: 'web' }));
    message(w, 2, (spec) => {
      spec.uint32(1 << 3).int32(0);
      message(spec, 2, (selector) => entry(selector, 1, 'app', 'web'));
      message(spec, 3, (template) => {
        message(template, 1, (m) => objectMeta(m, '', { app: 'web' }));
        message(template, 2, (pod) =>
          message(pod, 2, (c) => {
            str(c, 1, 'main');
            str(c, 2, 'nginx:1');
            message(c, 6, (port) => {
              str(port, 1, '');
              port.uint32(3 << 3).int32(80);
            });
            message(c, 8, (r) =>
              message(r, 2, (q) => {
                str(q, 1, 'cpu');
                message(q, 2, (quantity) => str(quantity, 1, '100m'));
              }),
            );
          }),
        );
      });
      message(spec, 4, (strategy) => {
        str(strategy, 1, 'RollingUpdate');
        message(strategy, 2, (ru) =>
          message(ru, 2, (ios) => {
            ios.uint32(1 << 3).int64(1);
            str(ios, 3, '50%');
          }),
        );
      });
    });
    const value = (await decodeObjectBody(envelope('apps/v1', 'Deployment', w.finish()), 'application/vnd.kubernetes.protobuf')).value;
    expect(value).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'main', image: 'nginx:1', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m' } } }] },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%' } },
      },
      // A Deployment's status is a struct, never nil: Kubernetes' JSON of the decoded object has it too.
      status: {},
    });
  });

  it('answers 415 for a kind it has no message for', async () => {
    const body = envelope('example.com/v1', 'Widget', Writer.create().finish());
    await expect(decodeObjectBody(body, 'application/vnd.kubernetes.protobuf')).rejects.toThrow(/unknown format/);
  });
});
