import { encodeEnvelope, encodeProtobufObject } from '@svc/machinery';
import { stringify as toYaml } from 'yaml';
import type { FuzzHttp, WireRequest } from './fuzz-http';
import { requestTarget, resolvePlaceholders, resolveValue, type FuzzInput, type ValueBody } from './fuzz-input';
import { buildHostileBody } from './hostile-bodies';

/** What the request looks like on the wire, and the must-refuse reasons its body adds. */
export interface Materialized {
  wire: WireRequest;
  mustRefuse: string[];
}

export interface LiveState {
  namespace: string;
  /** The store's revision now, for `{rv}` in queries. */
  revision: string;
  http: FuzzHttp;
}

/** `{rv}` and `{rv+N}` in a query, resolved against the store's revision. */
function resolveRevisions(text: string, revision: string): string {
  return text.replace(/\{rv(?:\+(\d+))?\}/g, (_m, plus: string | undefined) => (BigInt(revision) + BigInt(plus ?? '0')).toString());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function liveResourceVersion(http: FuzzHttp, path: string): Promise<string | undefined> {
  const answer = await http.send({ method: 'GET', target: path, headers: [['Accept', 'application/json']] }, 30_000);
  if (answer.status !== 200) return undefined;
  try {
    const object = JSON.parse(answer.body.toString('utf8')) as { metadata?: { resourceVersion?: string } };
    return object.metadata?.resourceVersion;
  } catch {
    return undefined;
  }
}

function encodeValue(body: ValueBody, value: unknown): Buffer {
  switch (body.encoding) {
    case 'json':
      return Buffer.from(JSON.stringify(value) ?? 'null');
    case 'yaml':
      return Buffer.from(toYaml(value));
    case 'svc-protobuf': {
      const typed = isRecord(value) ? value : {};
      return Buffer.from(
        encodeEnvelope({
          apiVersion: typeof typed.apiVersion === 'string' ? typed.apiVersion : '',
          kind: typeof typed.kind === 'string' ? typed.kind : '',
          raw: Buffer.from(JSON.stringify(value) ?? 'null'),
          contentType: 'application/json',
        }),
      );
    }
    case 'kubernetes-protobuf':
      try {
        return Buffer.from(encodeProtobufObject(isRecord(value) ? value : {}));
      } catch {
        // A value the message cannot hold (a surprise where a number goes): send the envelope with a truncated payload.
        const typed = isRecord(value) ? value : {};
        const apiVersion = typeof typed.apiVersion === 'string' ? typed.apiVersion : '';
        const kind = typeof typed.kind === 'string' ? typed.kind : '';
        return Buffer.from(encodeEnvelope({ apiVersion, kind, raw: Buffer.from([0x0a, 0xff, 0x01]) }));
      }
  }
}

/**
 * Turns an input into bytes against the server as it is now: the fixture namespace and store
 * revision filled in, the target's live resourceVersion put in an update body when asked, hostile
 * bodies built from their shape.
 */
export async function materialize(input: FuzzInput, live: LiveState): Promise<Materialized> {
  const mustRefuse: string[] = [];
  const target = resolveRevisions(requestTarget(input, live.namespace), live.revision);
  const headers = input.headers.map(([k, v]): [string, string] => [k, resolvePlaceholders(v, live.namespace)]);
  let body: Buffer | undefined;
  const spec = input.body;
  if (spec !== undefined) {
    switch (spec.encoding) {
      case 'text':
        body = Buffer.from(resolvePlaceholders(spec.data, live.namespace));
        break;
      case 'base64':
        body = Buffer.from(spec.data, 'base64');
        break;
      case 'hostile': {
        const params: Record<string, string | number | boolean> = {};
        for (const [k, v] of Object.entries(spec.params)) params[k] = typeof v === 'string' ? resolvePlaceholders(v, live.namespace) : v;
        const built = buildHostileBody(spec.shape, params);
        body = built.body;
        mustRefuse.push(...built.mustRefuse);
        break;
      }
      default: {
        let value = resolveValue(spec.value, live.namespace);
        if (spec.liveResourceVersion && isRecord(value)) {
          const rv = await liveResourceVersion(live.http, target.split('?')[0]);
          if (rv !== undefined) value = { ...value, metadata: { ...(isRecord(value.metadata) ? value.metadata : {}), resourceVersion: rv } };
        }
        body = encodeValue(spec, value);
      }
    }
  }
  return { wire: { method: input.method, target, headers, body }, mustRefuse };
}
