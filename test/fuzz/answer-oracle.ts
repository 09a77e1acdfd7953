import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { decodeEnvelope, decodeProtobufObject } from '@svc/machinery';
import { parse as parseYaml } from 'yaml';
import { splitJsonDocuments } from '../support/api-client';
import type { Answer } from './fuzz-http';
import { queryValues, resolvePlaceholders, type FuzzInput } from './fuzz-input';
import { REQUEST_BODY_LIMIT } from './hostile-bodies';

/** One broken rule: which oracle, and what happened. */
export interface Violation {
  oracle: string;
  message: string;
}

export interface DecodedAnswer {
  value?: unknown;
  /** Why the body could not be decoded as its Content-Type says. */
  error?: string;
  text: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function decompress(answer: Answer): Buffer {
  const encoding = String(answer.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') return gunzipSync(answer.body);
  if (encoding === 'deflate') return inflateSync(answer.body);
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  return answer.body;
}

/** The answer's body, decoded as its Content-Type says (JSON, YAML or the protobuf envelope). */
export function decodeAnswer(answer: Answer): DecodedAnswer {
  let bytes: Buffer;
  try {
    bytes = decompress(answer);
  } catch (error) {
    return { text: '', error: `the body does not decompress as ${String(answer.headers['content-encoding'])}: ${(error as Error).message}` };
  }
  const contentType = String(answer.headers['content-type'] ?? '').toLowerCase();
  const mediaType = contentType.split(';')[0].trim();
  if (mediaType === 'application/vnd.svc.protobuf') {
    try {
      const envelope = decodeEnvelope(bytes);
      const raw =
        envelope.contentType.split(';')[0].trim() === 'application/json'
          ? (JSON.parse(Buffer.from(envelope.raw).toString('utf8')) as unknown)
          : decodeProtobufObject(envelope);
      return { value: raw, text: JSON.stringify(raw) };
    } catch (error) {
      return { text: bytes.toString('latin1').slice(0, 500), error: `the body is not a valid protobuf envelope: ${(error as Error).message}` };
    }
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { text: bytes.toString('latin1'), error: 'the body is not valid UTF-8' };
  }
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return { value: JSON.parse(text) as unknown, text };
    } catch (error) {
      return { text, error: `the body is not valid JSON: ${(error as Error).message}` };
    }
  }
  if (mediaType === 'application/yaml') {
    try {
      // The library's duplicate-key check is quadratic in a map's size: on a 2 MB list of wide objects
      // it held the fuzzer's thread for minutes. The server writes its YAML from JSON objects, whose keys
      // are unique, so the check finds nothing here.
      return { value: parseYaml(text, { uniqueKeys: false }) as unknown, text };
    } catch (error) {
      return { text, error: `the body is not valid YAML: ${(error as Error).message}` };
    }
  }
  return { text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A decoded field as text for a message: strings as they are, anything else as JSON. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Paths (in the decoded value) of strings that hold a lone UTF-16 surrogate, which strict decoders refuse. */
export function loneSurrogates(value: unknown, path = '', found: string[] = []): string[] {
  if (found.length >= 3) return found;
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) found.push(path || '(root)');
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => loneSurrogates(item, `${path}[${i}]`, found));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) found.push(`${path}.(key)`);
      loneSurrogates(item, `${path}.${key}`, found);
    }
  }
  return found;
}

/** Secrets anywhere in the value (an object, a list, a watch event) that carry `stringData`. */
function secretsWithStringData(value: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown) => {
    if (!isRecord(node)) return;
    if (node.kind === 'Secret' && node.stringData !== undefined) found.push(text((node.metadata as Record<string, unknown> | undefined)?.name ?? '?'));
    if (Array.isArray(node.items)) node.items.forEach(visit);
    if (isRecord(node.object)) visit(node.object);
  };
  visit(value);
  return found;
}

/** Checks that apply to every decoded body the server sends (objects, lists, watch events). */
export function checkContent(value: unknown): Violation[] {
  const violations: Violation[] = [];
  const lone = loneSurrogates(value);
  if (lone.length > 0)
    violations.push({ oracle: 'lone-surrogate', message: `the answer carries a lone UTF-16 surrogate at ${lone.join(', ')} (strict JSON decoders refuse it)` });
  const secrets = secretsWithStringData(value);
  if (secrets.length > 0)
    violations.push({ oracle: 'secret-stringData', message: `Secret ${secrets.join(', ')} is answered with stringData (it belongs folded into data)` });
  return violations;
}

export interface JudgeContext {
  namespace: string;
  /** The reasons this request must be refused, the input's and its body's. */
  mustRefuse: string[];
  /** An accepted watch: its body is a stream, judged as it ends. */
  streaming?: boolean;
  /** Size of the request body sent. */
  bodyBytes: number;
}

const TOO_LARGE_RV = /too large resource version/i;

/**
 * The oracles on one answer: a 2xx (never for a request that must be refused), a 4xx whose body is a
 * Status with the same code, or spec 1's 504 for a resourceVersion not reached yet; no other status,
 * no reset, no hang. Accepted bodies must decode, keep the object's identity, and carry no lone
 * surrogate and no Secret stringData.
 */
export function judgeAnswer(input: FuzzInput, answer: Answer, context: JudgeContext): { violations: Violation[]; divergences: string[] } {
  const violations: Violation[] = [];
  const divergences: string[] = [];
  if (answer.error !== undefined && answer.status === 0) {
    // A body past the size limit may be cut off mid-upload: no server has to read 100 MB to refuse it.
    const cutUpload = context.bodyBytes > REQUEST_BODY_LIMIT && /EPIPE|ECONNRESET/.test(answer.error);
    if (!cutUpload) violations.push({ oracle: 'no-answer', message: `no answer: ${answer.error}` });
    return { violations, divergences };
  }
  if (answer.error !== undefined) violations.push({ oracle: 'cut-answer', message: `the ${answer.status} answer was cut: ${answer.error}` });
  const status = answer.status;
  const head = input.method.toUpperCase() === 'HEAD';
  const accepted = status >= 200 && status < 300;
  const decoded = head || (accepted && context.streaming) ? { text: '' } : decodeAnswer(answer);

  if (status >= 200 && status < 300) {
    if (context.mustRefuse.length > 0) {
      violations.push({ oracle: 'must-refuse', message: `answered ${status} to a request that must be refused: ${context.mustRefuse.join('; ')}` });
    }
    if (input.shouldRefuse !== undefined && input.shouldRefuse.length > 0)
      divergences.push(`answered ${status} where Kubernetes refuses: ${input.shouldRefuse.join('; ')}`);
    if (decoded.error !== undefined) violations.push({ oracle: 'undecodable-answer', message: `${status} answer: ${decoded.error}` });
    if (decoded.value !== undefined) {
      violations.push(...checkContent(decoded.value));
      violations.push(...checkIdentity(input, decoded.value, context.namespace, status));
    }
    return { violations, divergences };
  }
  if (status >= 400 && status < 500) {
    if (!head) violations.push(...checkStatusBody(decoded, status));
    return { violations, divergences };
  }
  if (status === 504 && isTooLargeResourceVersionAllowed(input)) {
    const statusViolations = checkStatusBody(decoded, status);
    const message = isRecord(decoded.value) ? text(decoded.value.message ?? '') : '';
    if (statusViolations.length === 0 && TOO_LARGE_RV.test(message)) return { violations, divergences };
  }
  // Redirects belong to the non-resource documents (an OpenAPI document asked for by a stale hash).
  const resourcePath = /^\/apis?\//.test(input.path);
  if (status >= 300 && status < 400 && !resourcePath && answer.headers.location !== undefined) return { violations, divergences };
  const reason = isRecord(decoded.value)
    ? ` ${text(decoded.value.reason ?? '')}: ${text(decoded.value.message ?? '').slice(0, 300)}`
    : ` ${decoded.text.slice(0, 300)}`;
  violations.push({ oracle: status >= 500 ? 'server-error' : 'unexpected-status', message: `answered ${status}${reason}` });
  return { violations, divergences };
}

/** Spec 1: a get or list (not a watch) with a resourceVersion the server has not reached may end in 504. */
function isTooLargeResourceVersionAllowed(input: FuzzInput): boolean {
  const method = input.method.toUpperCase();
  return (method === 'GET' || method === 'HEAD') && input.watchDeadlineMs === undefined && (queryValues(input).get('resourceVersion') ?? '') !== '';
}

function checkStatusBody(decoded: DecodedAnswer, status: number): Violation[] {
  if (decoded.error !== undefined)
    return [
      { oracle: 'status-body', message: `the ${status} answer has no Status body: ${decoded.error}; body ${JSON.stringify(decoded.text.slice(0, 200))}` },
    ];
  const value = decoded.value;
  if (!isRecord(value) || value.kind !== 'Status') {
    return [{ oracle: 'status-body', message: `the ${status} answer has no Status body: ${JSON.stringify(decoded.text.slice(0, 200))}` }];
  }
  if (value.code !== status) return [{ oracle: 'status-body', message: `the Status body says code ${JSON.stringify(value.code)} on an HTTP ${status} answer` }];
  return [];
}

/** An accepted write answers with the object the path names: same kind, apiVersion, namespace and name. */
function checkIdentity(input: FuzzInput, value: unknown, namespace: string, status: number): Violation[] {
  const method = input.method.toUpperCase();
  if (input.target === undefined || !(method === 'POST' || method === 'PUT' || method === 'PATCH') || !isRecord(value)) return [];
  if (value.kind === 'Status') return [];
  const target = input.target;
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const problems: string[] = [];
  if (value.kind !== target.kind) problems.push(`kind ${JSON.stringify(value.kind)}`);
  if (value.apiVersion !== target.apiVersion) problems.push(`apiVersion ${JSON.stringify(value.apiVersion)}`);
  const name = resolvePlaceholders(target.name, namespace);
  if (method !== 'POST' && metadata.name !== name) problems.push(`name ${JSON.stringify(metadata.name)} (path: ${JSON.stringify(name)})`);
  const expectedNamespace = resolvePlaceholders(target.namespace, namespace);
  if (expectedNamespace !== '' && metadata.namespace !== expectedNamespace)
    problems.push(`namespace ${JSON.stringify(metadata.namespace)} (path: ${JSON.stringify(expectedNamespace)})`);
  if (problems.length === 0) return [];
  return [{ oracle: 'identity', message: `the ${status} answer to a ${method} is an object with ${problems.join(', ')}` }];
}

/** The events of a JSON watch stream (JSON documents one after another, pretty-printed or not). */
export function watchEvents(body: Buffer): { events: unknown[]; error?: string } {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { events: [], error: 'the watch stream is not valid UTF-8' };
  }
  try {
    const { docs, rest } = splitJsonDocuments(text);
    if (rest.trim() !== '') return { events: docs, error: `the watch stream ends inside an event: ${JSON.stringify(rest.slice(0, 200))}` };
    return { events: docs };
  } catch (error) {
    return { events: [], error: `a watch event is not valid JSON: ${(error as Error).message}` };
  }
}
