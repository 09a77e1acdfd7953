// Every request the console makes goes to this origin's public API with the user's own credentials:
// the token they signed in with (Authorization header; the WebSocket subprotocol for watches and exec),
// or, without a token, the client certificate their browser presents.

import type { Status } from '@svc/machinery/meta';

export type { Status };

const TOKEN_KEY = 'svc-console-token';

/** A refused or failed request: the server's Status, shown as the server said it. */
export class ApiError extends Error {
  constructor(
    readonly status: Status,
    readonly code: number,
  ) {
    super(status.message || `${code} ${status.reason ?? 'error'}`);
  }
}

export function token(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function setToken(value: string | undefined): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function authHeaders(): Record<string, string> {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json';

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Sent as is when a string (YAML); JSON otherwise. */
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** A request to the API; resolves with the parsed JSON body, or throws the Status as an ApiError. */
export async function api<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json', ...authHeaders() };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['Content-Type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal, credentials: 'same-origin', cache: 'no-store' });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = { message: text.trim() };
  }
  if (!response.ok) throw new ApiError((parsed as Status | undefined) ?? { message: response.statusText }, response.status);
  return parsed as T;
}

/** A plain-text request (health checks, metrics); throws the Status on failure. */
export async function apiText(path: string, signal?: AbortSignal): Promise<string> {
  const response = await fetch(path, { headers: { Accept: 'text/plain,*/*', ...authHeaders() }, signal, cache: 'no-store' });
  const text = await response.text();
  if (!response.ok) {
    let status: Status = { message: text.trim() || response.statusText };
    try {
      status = JSON.parse(text) as Status;
    } catch {
      // plain text stays the message
    }
    throw new ApiError(status, response.status);
  }
  return text;
}

/** The bearer token as Kubernetes' WebSocket subprotocol (base64url without padding). */
export function bearerProtocol(): string[] {
  const t = token();
  if (!t) return [];
  const bytes = new TextEncoder().encode(t);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return [`base64url.bearer.authorization.k8s.io.${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`];
}

/** `wss://<this origin><path>` */
export function socketUrl(path: string): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${path}`;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
