import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { ANONYMOUS_USER, decodeObjectEnvelope, type UserInfo } from '@svc/machinery';
import { requestContext, type RequestContext } from '../request/request-context';
import { internalErrorStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import type { AuditBackend } from './audit-backend';
import { microTime, type AuditEvent, type AuditStage, type AuditUser } from './audit-event';
import { evaluatePolicy, type AuditDecision, type AuditPolicy } from './audit-policy';

type ChainHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** What the audit filter runs with: a policy and the backends behind it (already in their modes). */
export interface AuditRuntime {
  policy: AuditPolicy;
  /** Answers false only when a blocking-strict backend could not take an event. */
  backend: AuditBackend;
}

/**
 * The media types of the request body and of the answer, as they went over the wire: the objects an
 * event logs are JSON whatever the client spoke (as Kubernetes logs them), so these say what it spoke.
 */
export const REQUEST_CONTENT_TYPE_ANNOTATION = 'audit.svc.io/request-content-type';
export const RESPONSE_CONTENT_TYPE_ANNOTATION = 'audit.svc.io/response-content-type';

/** Request and response bodies are logged only up to this size; larger ones are left out and annotated. */
export const MAX_AUDITED_BODY_BYTES = 1024 * 1024;
/** Error responses are read this far at every level, for the responseStatus message. */
const MAX_STATUS_BODY_BYTES = 64 * 1024;
const MAX_AUDIT_ID_LENGTH = 128;
const MAX_SOURCE_IPS = 16;

/**
 * Kubernetes' WithAuditInit: every response carries an `Audit-Id`, the client's own if it sent a
 * sane one, so a caller can find its request in the audit log.
 */
export function withAuditId(): ChainHandler {
  return (req, res, next) => {
    const sent = req.headers['audit-id'];
    const id = typeof sent === 'string' && sent.length <= MAX_AUDIT_ID_LENGTH && /^[\x21-\x7e]+$/.test(sent) ? sent : randomUUID();
    requestContext(req).auditID = id;
    res.setHeader('Audit-Id', id);
    next();
  };
}

/** Requests that reached withAudit: the failed-authentication filter leaves them alone. */
const reachedAudit = new WeakSet<IncomingMessage>();

/**
 * Kubernetes' WithFailedAuthenticationAudit, in front of authentication: a request answered 401 before
 * it reached withAudit is audited once, at ResponseStarted, with no user, by the same policy.
 */
export function withFailedAuthenticationAudit(audit: AuditRuntime): ChainHandler {
  return (req, res, next) => {
    res.once('finish', () => {
      if (reachedAudit.has(req) || res.statusCode !== 401) return;
      const context = requestContext(req);
      const decision = evaluatePolicy(audit.policy, undefined, context.info);
      if (decision.level === 'None' || decision.omitStages.has('ResponseStarted')) return;
      const event = baseEvent(req, context, decision);
      event.user = { username: '' };
      event.stage = 'ResponseStarted';
      event.stageTimestamp = microTime();
      event.responseStatus = { metadata: {}, code: 401, status: 'Failure', reason: 'Unauthorized', message: 'Authentication failed' };
      void audit.backend.processEvents([event]);
    });
    next();
  };
}

/**
 * Kubernetes' WithAudit, behind authentication: the policy picks the level for the caller and the
 * request; events are written at RequestReceived, ResponseStarted (long-running requests) and
 * ResponseComplete, minus the omitted stages. Blocking backends hold the response until its event is
 * written; a blocking-strict backend that cannot write RequestReceived fails the request.
 */
export function withAudit(audit: AuditRuntime): ChainHandler {
  return (req, res, next) => {
    reachedAudit.add(req);
    const context = requestContext(req);
    const decision = evaluatePolicy(audit.policy, context.user ?? ANONYMOUS_USER, context.info);
    if (decision.level === 'None') return next();
    const event = baseEvent(req, context, decision);
    const recorder = new BodyRecorder(decision, context.longRunning);
    context.audit = recorder;
    let completed = false;

    const emit = (stage: AuditStage): boolean | Promise<boolean> => {
      if (decision.omitStages.has(stage)) return true;
      const snapshot: AuditEvent = { ...event, stage, stageTimestamp: microTime() };
      if (context.impersonatedBy) {
        snapshot.user = auditUser(context.impersonatedBy);
        snapshot.impersonatedUser = context.user && auditUser(context.user);
      }
      if (context.auditAnnotations) snapshot.annotations = { ...context.auditAnnotations };
      const wire = wireAnnotations(req, res, stage);
      if (wire) snapshot.annotations = { ...snapshot.annotations, ...wire };
      if (stage !== 'RequestReceived') {
        snapshot.responseStatus = recorder.responseStatus(res.statusCode);
        if (decision.level !== 'Metadata') Object.assign(snapshot, recorder.requestObject());
        if (stage === 'ResponseComplete' && decision.level === 'RequestResponse' && !context.longRunning) Object.assign(snapshot, recorder.responseObject(res));
      }
      return audit.backend.processEvents([snapshot]);
    };

    const originalWriteHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = (...args: unknown[]) => {
      if (context.longRunning && !completed) void emit('ResponseStarted');
      return originalWriteHead(...args);
    };
    const originalWrite = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      recorder.recordResponse(chunk, res.statusCode);
      return originalWrite(chunk, ...rest);
    }) as ServerResponse['write'];
    const originalEnd = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      if (completed) return originalEnd(...args);
      completed = true;
      if (typeof args[0] !== 'function') recorder.recordResponse(args[0], res.statusCode);
      const written = emit(context.panicked ? 'Panic' : 'ResponseComplete');
      if (typeof written === 'boolean') return originalEnd(...args);
      void written.finally(() => originalEnd(...args));
      return res;
    }) as ServerResponse['end'];
    res.once('close', () => {
      if (completed) return;
      completed = true;
      void emit('ResponseComplete');
    });

    const received = emit('RequestReceived');
    const proceed = (accepted: boolean): void => {
      if (accepted) return next();
      writeStatus(res, internalErrorStatus('failed to store audit event'));
    };
    if (typeof received === 'boolean') proceed(received);
    else received.then(proceed, () => proceed(false));
  };
}

/** The wire media types of a request with a body, and of the answer once it is under way. */
function wireAnnotations(req: IncomingMessage, res: ServerResponse, stage: AuditStage): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  const sent = req.headers['content-type'];
  if (sent !== undefined && sent !== '' && (req.headers['content-length'] !== '0' || req.headers['transfer-encoding'] !== undefined)) {
    out = { [REQUEST_CONTENT_TYPE_ANNOTATION]: sent.slice(0, MAX_MEDIA_TYPE_LENGTH) };
  }
  const answered = stage === 'RequestReceived' ? undefined : res.getHeader('content-type');
  if (typeof answered === 'string' && answered !== '') out = { ...out, [RESPONSE_CONTENT_TYPE_ANNOTATION]: answered };
  return out;
}

/** A Content-Type is the client's text: logged up to this length. */
const MAX_MEDIA_TYPE_LENGTH = 256;

function baseEvent(req: IncomingMessage, context: RequestContext, decision: AuditDecision): AuditEvent {
  const info = context.info;
  const now = microTime();
  const event: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: decision.level,
    auditID: context.auditID ?? randomUUID(),
    stage: 'RequestReceived',
    requestURI: req.url ?? '/',
    verb: info.verb,
    user: auditUser(context.user ?? ANONYMOUS_USER),
    sourceIPs: sourceIPs(req),
    userAgent: req.headers['user-agent'],
    requestReceivedTimestamp: now,
    stageTimestamp: now,
  };
  if (info.isResourceRequest) {
    event.objectRef = JSON.parse(
      JSON.stringify({
        resource: info.resource || undefined,
        namespace: info.namespace || undefined,
        name: info.name || undefined,
        apiGroup: info.group || undefined,
        apiVersion: info.version || undefined,
        subresource: info.subresource || undefined,
      }),
    ) as AuditEvent['objectRef'];
  }
  return event;
}

function auditUser(user: UserInfo): AuditUser {
  const out: AuditUser = { username: user.name };
  if (user.uid) out.uid = user.uid;
  out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** Kubernetes' SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, each address once. */
function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const add = (ip: string | undefined) => {
    const trimmed = ip?.trim();
    if (trimmed && isIP(trimmed) && !ips.includes(trimmed) && ips.length < MAX_SOURCE_IPS) ips.push(trimmed);
  };
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') for (const ip of forwarded.split(',', MAX_SOURCE_IPS)) add(ip);
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string') add(real);
  add(req.socket.remoteAddress?.replace(/^::ffff:/, ''));
  return ips;
}

/** Keeps the bodies an event may log, up to their bounds. */
class BodyRecorder {
  private requestBody?: Buffer;
  private requestContentType?: string;
  private readonly responseChunks: Buffer[] = [];
  private responseBytes = 0;
  private responseOverflow = false;

  constructor(
    private readonly decision: AuditDecision,
    /** A watch's stream is never logged as a response object: it would be held for the watch's life. */
    private readonly longRunning: boolean,
  ) {}

  recordRequestBody(body: Buffer, contentType: string | undefined): void {
    if (this.decision.level === 'Metadata') return;
    this.requestBody = body;
    this.requestContentType = contentType;
  }

  recordResponse(chunk: unknown, statusCode: number): void {
    if (chunk === undefined || chunk === null || this.responseOverflow) return;
    const limit = statusCode >= 400 ? MAX_STATUS_BODY_BYTES : this.decision.level === 'RequestResponse' && !this.longRunning ? MAX_AUDITED_BODY_BYTES : 0;
    if (limit === 0) return;
    const buffer =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : undefined;
    if (!buffer) return;
    if (this.responseBytes + buffer.length > limit) {
      this.responseOverflow = true;
      this.responseChunks.length = 0;
      return;
    }
    this.responseChunks.push(buffer);
    this.responseBytes += buffer.length;
  }

  requestObject(): Partial<AuditEvent> {
    if (!this.requestBody || this.requestBody.length === 0) return {};
    if (this.requestBody.length > MAX_AUDITED_BODY_BYTES)
      return { annotations: { 'audit.svc.io/request-object': 'omitted: larger than the audit body limit' } };
    const parsed = parseJson(this.requestBody, this.requestContentType);
    return parsed === undefined ? {} : { requestObject: this.strip(parsed) };
  }

  responseObject(res: ServerResponse): Partial<AuditEvent> {
    if (this.responseOverflow) return {};
    const parsed = parseJson(Buffer.concat(this.responseChunks), String(res.getHeader('content-type') ?? ''));
    return parsed === undefined ? {} : { responseObject: this.strip(parsed) };
  }

  responseStatus(code: number): AuditEvent['responseStatus'] {
    const status: NonNullable<AuditEvent['responseStatus']> = { metadata: {}, code };
    if (code < 400 || this.responseOverflow || this.responseChunks.length === 0) return status;
    const body = parseJson(Buffer.concat(this.responseChunks), 'application/json') as Record<string, unknown> | undefined;
    if (body?.kind === 'Status') {
      if (typeof body.status === 'string') status.status = body.status;
      if (typeof body.message === 'string') status.message = body.message;
      if (typeof body.reason === 'string') status.reason = body.reason;
    }
    return status;
  }

  private strip(value: unknown): unknown {
    if (!this.decision.omitManagedFields || typeof value !== 'object' || value === null) return value;
    const object = value as { metadata?: { managedFields?: unknown }; items?: unknown[] };
    delete object.metadata?.managedFields;
    if (Array.isArray(object.items)) for (const item of object.items) delete (item as { metadata?: { managedFields?: unknown } })?.metadata?.managedFields;
    return object;
  }
}

/**
 * A logged body as JSON: JSON as it is, a protobuf envelope decoded (Kubernetes logs the object a
 * protobuf request carried, not its bytes), anything else left out.
 */
function parseJson(body: Buffer, contentType: string | undefined): unknown {
  if (contentType && /protobuf/i.test(contentType)) {
    try {
      return decodeObjectEnvelope(body);
    } catch {
      return undefined;
    }
  }
  if (contentType && !/json/i.test(contentType)) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
