import type { RequestInfo } from '../request/request-info';

/** Kubernetes' work estimator constants (apiserver/pkg/util/flowcontrol/request/config.go). */
export const MINIMUM_SEATS = 1;
export const MAXIMUM_SEATS_LIMIT = 10;
const OBJECTS_PER_SEAT = 100;
/** The share of a level's seats one request may take at most (priorityLevelMaxSeatsPercent). */
const LEVEL_MAX_SEATS_FRACTION = 0.15;

/** The most seats one request of a level takes: 15% of its seats, no more than a hand's share, 1 to 10. */
export function levelMaxSeats(concurrencyLimit: number, handSize: number): number {
  const seats = Math.max(1, Math.min(Math.ceil(concurrencyLimit * LEVEL_MAX_SEATS_FRACTION), Math.floor(concurrencyLimit / Math.max(1, handSize))));
  return Math.min(seats, MAXIMUM_SEATS_LIMIT);
}

/**
 * The seats a request takes (Kubernetes' list work estimator): 1 for everything but a LIST (and a
 * watch asking for its initial events), which takes one seat per 100 objects it walks, from the
 * count of stored objects of its resource, between 1 and the level's maximum. A count not known yet
 * costs the maximum, as Kubernetes' stale count does.
 */
export function estimateSeats(info: RequestInfo, query: URLSearchParams, storedCount: number | undefined, maxSeats: number): number {
  const max = Math.max(MINIMUM_SEATS, Math.min(maxSeats, MAXIMUM_SEATS_LIMIT));
  if (!info.isResourceRequest || info.name !== '') return MINIMUM_SEATS;
  if (info.verb === 'watch') {
    if (query.get('sendInitialEvents') !== 'true') return MINIMUM_SEATS;
  } else if (info.verb !== 'list') return MINIMUM_SEATS;
  if (storedCount === undefined) return max;
  const limitParam = Number(query.get('limit') ?? '0');
  const limit = Number.isInteger(limitParam) && limitParam > 0 && limitParam < storedCount ? limitParam : storedCount;
  // A list at any resourceVersion is served from the watch cache, which walks every object of the resource.
  const fromCache = info.verb === 'watch' || (query.get('resourceVersion') ?? '') !== '';
  const selected = (query.get('fieldSelector') ?? '') !== '' || (query.get('labelSelector') ?? '') !== '';
  const objects = fromCache ? storedCount : selected ? storedCount + limit : 2 * limit;
  return Math.max(MINIMUM_SEATS, Math.min(max, Math.ceil(objects / OBJECTS_PER_SEAT)));
}
