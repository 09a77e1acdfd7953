/** Kubernetes' audit levels, least to most detail. */
export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

/** `--audit-log-version` / `--audit-webhook-version`: the group and version events are written as. */
export const AUDIT_EVENT_VERSIONS = ['audit.svc.io/v1', 'audit.k8s.io/v1'] as const;
export type AuditEventVersion = (typeof AUDIT_EVENT_VERSIONS)[number];

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** An audit.k8s.io/v1 Event, fields in Kubernetes' order. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** RFC 3339 with microseconds. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Event time with microseconds, as Kubernetes' MicroTime. */
export function microTime(epochMs: number = performance.timeOrigin + performance.now()): string {
  const whole = Math.floor(epochMs);
  const micros = Math.floor((epochMs - whole) * 1000);
  return new Date(whole).toISOString().replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${ms}${String(micros).padStart(3, '0')}Z`);
}

/** An EventList of one batch, as the webhook backend posts it. */
export function eventList(
  events: readonly AuditEvent[],
  apiVersion: string,
): { kind: 'EventList'; apiVersion: string; metadata: object; items: readonly AuditEvent[] } {
  return { kind: 'EventList', apiVersion, metadata: {}, items: events };
}

/**
 * Kubernetes' legacy log line, one per event. Values are quoted as Go's %q does (JSON string escaping
 * is the same for what matters: a client's user agent or URI can never start a new line).
 */
export function legacyLine(event: AuditEvent): string {
  const q = (value: string): string => JSON.stringify(value);
  const list = (values: readonly string[]): string => values.map(q).join(',');
  const user = event.user;
  const impersonated = event.impersonatedUser;
  const username = user.username || '<none>';
  const groups = user.username && user.groups?.length ? list(user.groups) : '<none>';
  const response = event.responseStatus?.code === undefined ? '<deferred>' : String(event.responseStatus.code);
  return (
    `${event.requestReceivedTimestamp} AUDIT: id=${q(event.auditID)} stage=${q(event.stage)} ip=${q(event.sourceIPs?.[0] ?? '<unknown>')} ` +
    `method=${q(event.verb)} user=${q(username)} groups=${q(groups)} as=${q(impersonated ? impersonated.username : '<self>')} ` +
    `asgroups=${q(impersonated?.groups ? list(impersonated.groups) : '<lookup>')} user-agent=${q(event.userAgent ?? '')} ` +
    `namespace=${q(event.objectRef?.namespace || '<none>')} uri=${q(event.requestURI)} response="${response}"`
  );
}
