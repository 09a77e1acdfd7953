import { FieldError, fieldForbidden, fieldNotSupported } from './field-errors';
import { parseResourceVersion } from './resource-version';
import { newBadRequest, newInvalid } from './status-errors';

/** The group of ListOptions and the other meta kinds. */
export const META_GROUP = 'meta.svc.io';

/** How fresh a read must be. */
export type ReadSemantics =
  /** A consistent read of the latest revision. */
  | { readonly mode: 'MostRecent' }
  /** Any revision will do; the newest the server has at hand is preferred (a cache). */
  | { readonly mode: 'Any' }
  /** At least this revision; a server behind it waits, then answers 504 Too large resource version. */
  | { readonly mode: 'NotOlderThan'; readonly resourceVersion: number }
  /** Exactly this revision; 410 Expired when it is no longer kept. */
  | { readonly mode: 'Exact'; readonly resourceVersion: number };

/** How a list is read: a ReadSemantics, or the snapshot a continue token remembers. */
export type ListSemantics = ReadSemantics | { readonly mode: 'Continue'; readonly continue: string };

/** The query parameters of a get that decide which revision it reads, as the request carried them. */
export interface GetVersionParams {
  resourceVersion?: string;
}

/** The query parameters of a list that decide which revision (and page) it reads. */
export interface ListVersionParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** A positive limit asks for paging; zero or less means no limit. */
  limit?: number;
  continue?: string;
  sendInitialEvents?: boolean;
}

/** The query parameters of a watch that decide where it starts. */
export interface WatchVersionParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  continue?: string;
}

/** Where a watch starts and what it sends first. */
export interface WatchSemantics {
  /** MostRecent (unset), Any (`0`), Exact (after N) or, with sendInitialEvents, NotOlderThan N. */
  readonly mode: 'MostRecent' | 'Any' | 'NotOlderThan' | 'Exact';
  readonly resourceVersion?: number;
  /** Synthetic ADDED events for every object in the starting state come first. */
  readonly initialEvents: boolean;
  /** A BOOKMARK marks the end of the initial events (asked for with sendInitialEvents=true). */
  readonly initialEventsEndBookmark: boolean;
}

function isZero(rv: string): boolean {
  return /^0+$/.test(rv);
}

function invalidListOptions(errs: FieldError[]): never {
  throw newInvalid({ group: META_GROUP, kind: 'ListOptions' }, '', errs);
}

/**
 * Get: unset is MostRecent, `0` is Any, N is NotOlderThan N. Throws 400 for a malformed version.
 */
export function getSemantics(params: GetVersionParams): ReadSemantics {
  const rv = params.resourceVersion ?? '';
  if (rv === '') return { mode: 'MostRecent' };
  const n = parseResourceVersion(rv);
  return n === 0 ? { mode: 'Any' } : { mode: 'NotOlderThan', resourceVersion: n };
}

/**
 * List, per the table of the HTTP interface. Throws 422 Invalid (ListOptions) for forbidden
 * combinations of resourceVersionMatch, 400 for a resourceVersion other than `0` beside a
 * continue token, and 400 for a malformed version.
 */
export function listSemantics(params: ListVersionParams): ListSemantics {
  const rv = params.resourceVersion ?? '';
  const match = params.resourceVersionMatch ?? '';
  const cont = params.continue ?? '';
  const paging = (params.limit ?? 0) > 0;

  const errs: FieldError[] = [];
  if (match !== '') {
    if (rv === '') errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont !== '') errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(fieldNotSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && isZero(rv)) {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (params.sendInitialEvents !== undefined) {
    errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length > 0) invalidListOptions(errs);

  if (cont !== '') {
    // A continue token fixes the snapshot; `0` is tolerated for old clients, any other version is not.
    if (rv !== '' && !isZero(rv)) throw newBadRequest('specifying resource version is not allowed when using continue');
    return { mode: 'Continue', continue: cont };
  }
  if (rv === '') return { mode: 'MostRecent' };
  const n = parseResourceVersion(rv);
  if (match === 'Exact') return { mode: 'Exact', resourceVersion: n };
  if (n === 0) return { mode: 'Any' };
  if (match === 'NotOlderThan') return { mode: 'NotOlderThan', resourceVersion: n };
  return paging ? { mode: 'Exact', resourceVersion: n } : { mode: 'NotOlderThan', resourceVersion: n };
}

/**
 * Watch: unset starts with the current state as synthetic ADDED events, `0` with any recent
 * state, N with the changes after N only. With sendInitialEvents (which needs
 * resourceVersionMatch=NotOlderThan) the initial events are sent or skipped explicitly and a
 * BOOKMARK ends them. Throws 422 Invalid (ListOptions) for forbidden combinations.
 */
export function watchSemantics(params: WatchVersionParams): WatchSemantics {
  const rv = params.resourceVersion ?? '';
  const match = params.resourceVersionMatch ?? '';
  const send = params.sendInitialEvents;

  const errs: FieldError[] = [];
  if (send !== undefined && match !== 'NotOlderThan') {
    errs.push(fieldForbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match !== '') {
    if (send === undefined) {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(fieldNotSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if ((params.continue ?? '') !== '') {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  }
  if (errs.length > 0) invalidListOptions(errs);

  const n = rv === '' ? undefined : parseResourceVersion(rv);
  if (send === true) {
    if (n === undefined) return { mode: 'MostRecent', initialEvents: true, initialEventsEndBookmark: true };
    if (n === 0) return { mode: 'Any', initialEvents: true, initialEventsEndBookmark: true };
    return { mode: 'NotOlderThan', resourceVersion: n, initialEvents: true, initialEventsEndBookmark: true };
  }
  if (send === false) {
    if (n === undefined) return { mode: 'MostRecent', initialEvents: false, initialEventsEndBookmark: false };
    if (n === 0) return { mode: 'Any', initialEvents: false, initialEventsEndBookmark: false };
    return { mode: 'Exact', resourceVersion: n, initialEvents: false, initialEventsEndBookmark: false };
  }
  if (n === undefined) return { mode: 'MostRecent', initialEvents: true, initialEventsEndBookmark: false };
  if (n === 0) return { mode: 'Any', initialEvents: true, initialEventsEndBookmark: false };
  return { mode: 'Exact', resourceVersion: n, initialEvents: false, initialEventsEndBookmark: false };
}
