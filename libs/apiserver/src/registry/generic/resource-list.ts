import type { ApiObject } from '@svc/api';
import { newContinueExpired, type ListSemantics } from '@svc/machinery';
import { isStorageError, type ListOptions, type Storage } from '@svc/storage';
import type { Cacher } from '../../watchcache';
import type { ListOutcome } from '../types';
import type { Selection } from './selection';

export interface ListSource {
  storage: Storage;
  /** The resource's watch cache, looked up only when the read may be served from it. */
  cacher: () => Cacher<ApiObject> | undefined;
  prefix: string;
  selection: Selection;
  semantics: ListSemantics;
  limit: number;
  /** A most recent read without a limit may be served from the cache once it caught up (ConsistentListFromCache). */
  consistentFromCache?: boolean;
}

/**
 * A selective paged list reads further pages until the page is full; past this many reads it answers
 * with fewer items (and a continue token), as Kubernetes may, so one request stays bounded.
 */
const MAX_READS_PER_PAGE = 16;

/**
 * Reads a list as the resourceVersion tables say. "Any" (`0`) and "Not older than" are answered by the
 * watch cache when the resource has one (a limit is ignored for `0`, as Kubernetes' cache does), and so
 * is "Most recent" once the cache has caught up with the store (ConsistentListFromCache). The first
 * page of a paged list comes from the cache too, with the store's own continue token at the cache's
 * revision, as Kubernetes serves paged lists from cache snapshots; "Exact" and continue tokens go to
 * storage, whose pages at the token's revision continue that same snapshot. A selector over a paged
 * list reads on until `limit` items match.
 */
export async function readList(source: ListSource): Promise<ListOutcome> {
  const { semantics } = source;
  const cached = (await wholeFromCache(source)) ?? (await pageFromCache(source));
  if (cached !== undefined) return cached;
  try {
    return await readPages(source, storageListOptions(semantics));
  } catch (error) {
    if (semantics.mode === 'Continue' && isStorageError(error, 'Expired')) {
      throw newContinueExpired(await latestContinueToken(source.storage, source.prefix, semantics.continue));
    }
    throw error;
  }
}

/** The whole list from the watch cache, for the reads it serves without a limit; undefined when it does not. */
async function wholeFromCache(source: ListSource): Promise<ListOutcome | undefined> {
  const { semantics, selection } = source;
  // A most recent list with a limit pages through the store: its continue tokens are the store's.
  const consistent = semantics.mode === 'MostRecent' && source.consistentFromCache === true && source.limit <= 0;
  const cacheable = consistent || semantics.mode === 'Any' || (semantics.mode === 'NotOlderThan' && source.limit <= 0);
  const cacher = cacheable ? source.cacher() : undefined;
  if (cacher === undefined) return undefined;
  const listed = await cacher.list({
    keyPrefix: source.prefix,
    minRevision: semantics.mode === 'NotOlderThan' ? semantics.resourceVersion : undefined,
    consistent,
    filter: selection.filter,
  });
  return { items: listed.items, resourceVersion: String(listed.revision) };
}

/** The first page of a paged list from the watch cache's snapshot; undefined when the cache cannot serve it. */
async function pageFromCache(source: ListSource): Promise<ListOutcome | undefined> {
  const { semantics, selection } = source;
  const pageable = source.limit > 0 && ((semantics.mode === 'MostRecent' && source.consistentFromCache === true) || semantics.mode === 'NotOlderThan');
  const cacher = pageable ? source.cacher() : undefined;
  if (cacher === undefined) return undefined;
  const page = await cacher.listPage({
    keyPrefix: source.prefix,
    limit: source.limit,
    minRevision: semantics.mode === 'NotOlderThan' ? semantics.resourceVersion : undefined,
    consistent: semantics.mode === 'MostRecent',
    filter: selection.filter,
  });
  if (page === undefined) return undefined;
  const outcome: ListOutcome = { items: page.items, resourceVersion: String(page.revision) };
  if (page.continue !== undefined) {
    outcome.continue = page.continue;
    if (!selection.selective && page.remainingItemCount !== undefined) outcome.remainingItemCount = page.remainingItemCount;
  }
  return outcome;
}

/** The store's list options for what the cache did not serve: a continue token, or a revision to match. */
function storageListOptions(semantics: ListSource['semantics']): ListOptions {
  switch (semantics.mode) {
    case 'Continue':
      return { continue: semantics.continue };
    case 'Exact':
    case 'NotOlderThan':
      return { revision: semantics.resourceVersion, match: semantics.mode };
    default:
      return {};
  }
}

async function readPages(source: ListSource, first: ListOptions): Promise<ListOutcome> {
  const { storage, prefix, selection } = source;
  const limit = source.limit > 0 ? source.limit : 0;
  const filter = selection.filter;
  if (limit === 0 || filter === undefined) {
    const page = await storage.list<ApiObject>(prefix, { ...first, limit: limit || undefined });
    const items = filter === undefined ? page.items : page.items.filter(filter);
    const outcome: ListOutcome = { items, resourceVersion: String(page.revision) };
    if (page.continue !== undefined) {
      outcome.continue = page.continue;
      if (!selection.selective) outcome.remainingItemCount = page.remainingItemCount ?? (await countRest(storage, prefix, page.continue));
    }
    return outcome;
  }
  const items: ApiObject[] = [];
  let options = first;
  for (let reads = 0; ; reads++) {
    const page = await storage.list<ApiObject>(prefix, { ...options, limit: limit - items.length });
    for (const item of page.items) if (filter(item)) items.push(item);
    const outcome: ListOutcome = { items, resourceVersion: String(page.revision) };
    if (page.continue === undefined) return outcome;
    if (items.length >= limit || reads + 1 >= MAX_READS_PER_PAGE) return { ...outcome, continue: page.continue };
    options = { continue: page.continue };
  }
}

/**
 * The items after a page at the page's snapshot, for a store that counts them only at its current
 * revision: the rest of the snapshot is read and counted.
 */
async function countRest(storage: Storage, prefix: string, token: string): Promise<number> {
  return (await storage.list<ApiObject>(prefix, { continue: token })).items.length;
}

/**
 * Kubernetes gives a client whose continue token expired a token that goes on from the same place at
 * the latest version (the rest of the list is then not consistent with what it already has). The
 * store's token names the last key returned and the revision of the first page; the same token at the
 * current revision goes on from there. A token of unknown shape gets no such successor.
 */
async function latestContinueToken(storage: Storage, prefix: string, expired: string): Promise<string | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(expired, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const token = parsed as Record<string, unknown>;
  if (typeof token.rv !== 'number' || typeof token.after !== 'string') return undefined;
  const revision = await storage.currentRevision(prefix);
  return Buffer.from(JSON.stringify({ ...token, rv: revision })).toString('base64url');
}
