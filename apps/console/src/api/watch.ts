import type { WatchEvent } from '@svc/machinery/meta';
import { api, ApiError, bearerProtocol, socketUrl, type Status } from './client';

export type { WatchEvent };

export interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  generation?: number;
  managedFields?: Array<Record<string, unknown>>;
}

export interface WireObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  [field: string]: unknown;
}

/** A server-side Table (meta.k8s.io/v1). */
export interface ObjectTable {
  kind: 'Table';
  metadata?: { resourceVersion?: string; continue?: string };
  columnDefinitions: Array<{ name: string; type: string; format?: string; description?: string; priority?: number }>;
  rows: Array<{ cells: unknown[]; object: WireObject }>;
}

export interface WatchOptions<T> {
  /** Collection path (with no query). */
  path: string;
  params?: Record<string, string | undefined>;
  /** Media types of the events (a Table for the console's lists); objects otherwise. */
  accept?: string;
  resourceVersion: string;
  onEvent: (event: WatchEvent<T>) => void;
  /** The version was too old: list again. */
  onExpired: () => void;
  onError?: (error: ApiError | Error) => void;
}

const RECONNECT_MS = 1_000;

/**
 * A watch over WebSocket that resumes from the last version it saw when the server ends it (as it
 * does every few minutes) or the connection drops. The token rides in the bearer subprotocol.
 */
export class LiveWatch<T extends { metadata?: { resourceVersion?: string } }> {
  private socket: WebSocket | undefined;
  private stopped = false;
  private resourceVersion: string;
  private retry: number | undefined;

  constructor(private readonly options: WatchOptions<T>) {
    this.resourceVersion = options.resourceVersion;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.socket?.close();
  }

  private open(): void {
    if (this.stopped) return;
    const query = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', resourceVersion: this.resourceVersion });
    for (const [k, v] of Object.entries(this.options.params ?? {})) if (v) query.set(k, v);
    if (this.options.accept) query.set('accept', this.options.accept);
    const socket = new WebSocket(socketUrl(`${this.options.path}?${query.toString()}`), ['base64.binary.k8s.io', ...bearerProtocol()]);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => (opened = true);
    socket.onmessage = (message: MessageEvent<string>) => {
      let event: WatchEvent<T>;
      try {
        event = JSON.parse(message.data) as WatchEvent<T>;
      } catch {
        return;
      }
      if (event.type === 'ERROR') {
        const status = event.object as unknown as Status;
        if (status.code === 410) {
          this.stopped = true;
          socket.close();
          this.options.onExpired();
        } else this.options.onError?.(new ApiError(status, status.code ?? 500));
        return;
      }
      const rv = rowVersion(event.object);
      if (rv) this.resourceVersion = rv;
      if (event.type !== 'BOOKMARK') this.options.onEvent(event);
    };
    socket.onclose = () => {
      if (this.stopped) return;
      // A handshake refused (401, 403) closes before opening: say so, and try less often.
      if (!opened) this.options.onError?.(new Error('the watch could not be opened'));
      this.retry = window.setTimeout(() => this.open(), opened ? RECONNECT_MS : RECONNECT_MS * 5);
    };
  }
}

/** The resourceVersion an event carries: the object's, or for a Table the row object's. */
function rowVersion(object: unknown): string | undefined {
  const o = object as { kind?: string; metadata?: Meta; rows?: Array<{ object?: WireObject }> };
  if (o.kind === 'Table') return o.rows?.[0]?.object?.metadata?.resourceVersion ?? o.metadata?.resourceVersion;
  return o.metadata?.resourceVersion;
}

export interface ListedItems<T> {
  items: T[];
  resourceVersion: string;
}

/** Lists a collection (all pages). */
export async function listAll<T>(path: string, params: Record<string, string | undefined> = {}, signal?: AbortSignal): Promise<ListedItems<T>> {
  const items: T[] = [];
  let next: string | undefined;
  let resourceVersion = '';
  do {
    const query = new URLSearchParams({ limit: '500' });
    for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
    if (next) query.set('continue', next);
    const page = await api<{ items: T[]; metadata?: { resourceVersion?: string; continue?: string } }>(`${path}?${query.toString()}`, { signal });
    items.push(...page.items);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    next = page.metadata?.continue || undefined;
  } while (next);
  return { items, resourceVersion };
}
