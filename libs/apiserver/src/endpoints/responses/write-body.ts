import { encodeEnvelope, encodeKubernetesMessage, encodeObjectEnvelope, encodeProtobufObject, kubernetesMessageNameFor, type Status } from '@svc/machinery';
import { stringify as toYaml } from 'yaml';
import { jsonLine } from './encoded-json';
import type { OutputFormat } from './negotiation';
import type { ResponseWriter } from '../../serving/response-writer';

/** The bytes of one response body in the negotiated encoding. */
export function encodeBody(body: unknown, format: OutputFormat): Buffer | string {
  switch (format.encoding) {
    case 'protobuf':
      return Buffer.from(encodeObjectEnvelope(body as Record<string, unknown>));
    case 'kubernetes-protobuf':
      return Buffer.from(encodeProtobufObject(body as Record<string, unknown>));
    case 'yaml':
      return toYaml(body);
    default:
      // Shared cache objects carry their bytes already.
      return format.pretty ? `${JSON.stringify(body, null, 2)}\n` : jsonLine(body);
  }
}

/** Writes a whole response: status code, Content-Type, warnings and the encoded body. */
export function writeBody(res: ResponseWriter, code: number, body: unknown, format: OutputFormat, warnings: readonly string[] = []): void {
  if (!res.open) return;
  // A body of a kind Kubernetes has no message for goes out as JSON, which every protobuf client also reads.
  const shown =
    format.encoding === 'kubernetes-protobuf' && !hasKubernetesMessage(body)
      ? { ...format, encoding: 'json' as const, contentType: 'application/json' }
      : format;
  writeEncoded(res, code, encodeBody(body, shown), shown, warnings);
}

function hasKubernetesMessage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { apiVersion, kind } = body as Record<string, unknown>;
  return typeof apiVersion === 'string' && typeof kind === 'string' && kubernetesMessageNameFor(apiVersion, kind) !== undefined;
}

/** Writes a whole response whose body is already encoded in `format`. */
export function writeEncoded(res: ResponseWriter, code: number, encoded: Buffer | string, format: OutputFormat, warnings: readonly string[] = []): void {
  if (!res.open) return;
  res.addWarnings(warnings);
  res.end(code, encoded, { 'Content-Type': format.encoding === 'json' && format.view === undefined ? 'application/json' : format.contentType });
}

/** Writes a Status error in the negotiated encoding (JSON for views), with its retry hint as Retry-After. */
export function writeStatusBody(res: ResponseWriter, status: Status, format: OutputFormat): void {
  if (!res.open) {
    // Half a response cannot become an error any more; cutting it is the only honest signal.
    if (!res.timedOut && !res.raw.writableEnded) res.raw.destroy();
    return;
  }
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const plain: OutputFormat = format.view === undefined ? format : { ...format, view: undefined, contentType: 'application/json' };
  writeBody(res, status.code ?? 500, status, plain);
}

const WATCH_EVENT_MESSAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

/**
 * One frame of a Kubernetes protobuf watch stream, as its stream serializer writes it: a 4-byte
 * big-endian length, then the WatchEvent message itself (no envelope), whose object holds the
 * object's own envelope (prefix, type meta, its message).
 */
export function kubernetesWatchFrame(event: { type: string; object: unknown }): Buffer {
  const object = event.object as Record<string, unknown>;
  const embedded = hasKubernetesMessage(object) ? encodeProtobufObject(object) : encodeObjectEnvelope(object);
  const message = encodeKubernetesMessage(WATCH_EVENT_MESSAGE, { type: event.type });
  // The object is a RawExtension (field 2) whose raw (field 1) is the envelope's bytes.
  const raw = Buffer.concat([Buffer.from([0x0a]), varint(embedded.length), embedded]);
  const body = Buffer.concat([Buffer.from(message), Buffer.from([0x12]), varint(raw.length), raw]);
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** One frame of a protobuf watch stream: a 4-byte big-endian length, then an envelope of the event. */
export function protobufWatchFrame(event: { type: string; object: unknown }): Buffer {
  const envelope = encodeEnvelope({
    apiVersion: 'meta.svc.io/v1',
    kind: 'WatchEvent',
    raw: Buffer.from(JSON.stringify(event)),
    contentType: 'application/json',
  });
  const frame = Buffer.allocUnsafe(4 + envelope.length);
  frame.writeUInt32BE(envelope.length, 0);
  frame.set(envelope, 4);
  return frame;
}
