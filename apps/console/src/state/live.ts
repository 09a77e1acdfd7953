import { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { api, ApiError, TABLE_ACCEPT } from '../api/client';
import { listAll, LiveWatch, type WireObject, type ObjectTable, type WatchEvent } from '../api/watch';

export type ObjectTableRow = ObjectTable['rows'][number];

export interface LiveState<T> {
  items: T[];
  loading: boolean;
  error?: ApiError | Error;
  /** Changes applied so far (for tests and the update counter). */
  changes: number;
}

function keyOf(meta: { uid?: string; namespace?: string; name?: string } | undefined): string {
  return meta?.uid || `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

/**
 * Keeps a map of the collection up to date from a list and a watch, and hands React one new array
 * per animation frame however many events arrived in it: a thousand rows changing fifty times a
 * second costs one render a frame, not fifty.
 */
function useLiveCollection<T>(
  key: string | undefined,
  load: (signal: AbortSignal) => Promise<{ items: T[]; resourceVersion: string; extra?: unknown }>,
  watchWith: (resourceVersion: string, apply: (event: WatchEvent<unknown>) => void, expired: () => void, fail: (e: Error) => void) => LiveWatch<never>,
  itemKey: (item: T) => string,
  fromEvent: (event: WatchEvent<unknown>) => T | undefined,
): LiveState<T> & { extra?: unknown } {
  const [state, setState] = useState<LiveState<T> & { extra?: unknown }>({ items: [], loading: true, changes: 0 });
  const [generation, relist] = useReducer((n: number) => n + 1, 0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    if (key === undefined) return;
    const abort = new AbortController();
    const map = new Map<string, T>();
    let frame: number | undefined;
    let changes = 0;
    let extra: unknown;
    let watch: LiveWatch<never> | undefined;
    let retry: number | undefined;
    const flush = () => {
      frame = undefined;
      setState({ items: [...map.values()], loading: false, changes, extra });
    };
    const schedule = () => {
      if (frame === undefined) frame = requestAnimationFrame(flush);
    };
    setState((s) => ({ ...s, loading: true, error: undefined }));
    loadRef.current(abort.signal).then(
      (listed) => {
        if (abort.signal.aborted) return;
        extra = listed.extra;
        for (const item of listed.items) map.set(itemKey(item), item);
        flush();
        watch = watchWith(
          listed.resourceVersion,
          (event) => {
            const item = fromEvent(event);
            if (item === undefined) return;
            changes++;
            if (event.type === 'DELETED') map.delete(itemKey(item));
            else map.set(itemKey(item), item);
            schedule();
          },
          () => relist(),
          (error) => setState((s) => ({ ...s, error })),
        );
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        // A connection that failed (not an answer of the server) is tried again: networks blink.
        if (!(error instanceof ApiError)) retry = window.setTimeout(() => relist(), 1_000);
        setState({ items: [], loading: false, changes: 0, error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
    return () => {
      abort.abort();
      if (retry !== undefined) clearTimeout(retry);
      watch?.stop();
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
    // itemKey, fromEvent and watchWith are fixed per key.
  }, [key, generation]);
  return state;
}

function paramsKey(path: string | undefined, params: Record<string, string | undefined>): string | undefined {
  return path === undefined ? undefined : `${path}?${JSON.stringify(params)}`;
}

/** The objects of a collection, live. `path` undefined: nothing yet. */
export function useLiveObjects<T extends WireObject = WireObject>(path: string | undefined, params: Record<string, string | undefined> = {}): LiveState<T> {
  const key = paramsKey(path, params);
  return useLiveCollection<T>(
    key,
    (signal) => listAll<T>(path!, params, signal),
    (resourceVersion, apply, expired, fail) =>
      new LiveWatch<never>({ path: path!, params, resourceVersion, onEvent: apply, onExpired: expired, onError: fail }),
    (item) => keyOf(item.metadata),
    (event) => event.object as T,
  );
}

export interface LiveTable extends LiveState<ObjectTableRow> {
  columns: ObjectTable['columnDefinitions'];
}

/** The server's Table of a collection (its own printer columns), live: rows as the watch sends them. */
export function useLiveTable(path: string | undefined, params: Record<string, string | undefined> = {}): LiveTable {
  const key = paramsKey(path, params);
  const state = useLiveCollection<ObjectTableRow>(
    key,
    async (signal) => {
      const rows: ObjectTableRow[] = [];
      let columns: ObjectTable['columnDefinitions'] = [];
      let next: string | undefined;
      let resourceVersion = '';
      do {
        const query = new URLSearchParams({ limit: '500' });
        for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
        if (next) query.set('continue', next);
        const table = await api<ObjectTable>(`${path!}?${query.toString()}`, { accept: TABLE_ACCEPT, signal });
        if (columns.length === 0) columns = table.columnDefinitions ?? [];
        rows.push(...(table.rows ?? []));
        resourceVersion = table.metadata?.resourceVersion ?? resourceVersion;
        next = table.metadata?.continue || undefined;
      } while (next);
      return { items: rows, resourceVersion, extra: columns };
    },
    (resourceVersion, apply, expired, fail) =>
      new LiveWatch<never>({ path: path!, params, accept: TABLE_ACCEPT, resourceVersion, onEvent: apply, onExpired: expired, onError: fail }),
    (row) => keyOf(row.object?.metadata),
    (event) => (event.object as ObjectTable).rows?.[0],
  );
  const columns = useMemo(() => (state.extra as ObjectTable['columnDefinitions'] | undefined) ?? [], [state.extra]);
  return { ...state, columns };
}

/** One object, live (a watch of its collection narrowed to its name). */
export function useLiveObject<T extends WireObject = WireObject>(
  collection: string | undefined,
  name: string | undefined,
): { object?: T; loading: boolean; error?: ApiError | Error; history: T[] } {
  const params = useMemo(() => ({ fieldSelector: name ? `metadata.name=${name}` : undefined }), [name]);
  const live = useLiveObjects<T>(collection && name ? collection : undefined, params);
  const object = live.items[0];
  // Every version seen while the page is open, oldest first: conditions over time read it.
  const history = useRef<T[]>([]);
  const last = history.current[history.current.length - 1];
  if (object && last?.metadata.resourceVersion !== object.metadata.resourceVersion) history.current = [...history.current.slice(-199), object];
  return { object, loading: live.loading, error: live.error, history: history.current };
}
