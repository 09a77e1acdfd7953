import { getSemantics, ListVersionParams, listSemantics, watchSemantics, WatchVersionParams } from './resource-version-match';
import { StatusError } from './status';
import { isBadRequest, isInvalid } from './status-predicates';
import { thrownBy } from './testing/thrown-by';

const failure = (run: () => unknown): StatusError => thrownBy(run, StatusError);

describe('get', () => {
  it.each([
    [{}, { mode: 'MostRecent' }],
    [{ resourceVersion: '' }, { mode: 'MostRecent' }],
    [{ resourceVersion: '0' }, { mode: 'Any' }],
    [{ resourceVersion: '12' }, { mode: 'NotOlderThan', resourceVersion: 12 }],
  ])('%j reads %j', (params, expected) => {
    expect(getSemantics(params)).toEqual(expected);
  });

  it('rejects a malformed version with 400', () => {
    expect(isBadRequest(failure(() => getSemantics({ resourceVersion: 'x' })))).toBe(true);
  });
});

describe('list: the table of the HTTP interface, row by row', () => {
  // [resourceVersionMatch, paging, RV unset, RV=0, RV other (7)]
  type Cell = object | 'Invalid' | 'BadRequest';
  const rows: Array<[string, Partial<ListVersionParams>, Cell, Cell, Cell]> = [
    ['unset, limit unset', {}, { mode: 'MostRecent' }, { mode: 'Any' }, { mode: 'NotOlderThan', resourceVersion: 7 }],
    ['unset, limit=n no continue', { limit: 10 }, { mode: 'MostRecent' }, { mode: 'Any' }, { mode: 'Exact', resourceVersion: 7 }],
    [
      'unset, limit=n continue=token',
      { limit: 10, continue: 'tok' },
      { mode: 'Continue', continue: 'tok' },
      { mode: 'Continue', continue: 'tok' },
      'BadRequest',
    ],
    ['Exact, limit unset', { resourceVersionMatch: 'Exact' }, 'Invalid', 'Invalid', { mode: 'Exact', resourceVersion: 7 }],
    ['Exact, limit=n', { resourceVersionMatch: 'Exact', limit: 10 }, 'Invalid', 'Invalid', { mode: 'Exact', resourceVersion: 7 }],
    ['NotOlderThan, limit unset', { resourceVersionMatch: 'NotOlderThan' }, 'Invalid', { mode: 'Any' }, { mode: 'NotOlderThan', resourceVersion: 7 }],
    ['NotOlderThan, limit=n', { resourceVersionMatch: 'NotOlderThan', limit: 10 }, 'Invalid', { mode: 'Any' }, { mode: 'NotOlderThan', resourceVersion: 7 }],
  ];

  for (const [name, params, unset, zero, other] of rows) {
    describe(name, () => {
      const cells: Array<[string, string | undefined, Cell]> = [
        ['RV unset', undefined, unset],
        ['RV=0', '0', zero],
        ['RV other', '7', other],
      ];
      it.each(cells)('%s', (_label, rv, expected) => {
        const p: ListVersionParams = { ...params, resourceVersion: rv };
        if (expected === 'Invalid') {
          const err = failure(() => listSemantics(p));
          expect(isInvalid(err)).toBe(true);
          expect(err.code).toBe(422);
        } else if (expected === 'BadRequest') {
          const err = failure(() => listSemantics(p));
          expect(isBadRequest(err)).toBe(true);
          expect(err.message).toBe('specifying resource version is not allowed when using continue');
        } else {
          expect(listSemantics(p)).toEqual(expected);
        }
      });
    });
  }

  it('treats limit=0 as no limit', () => {
    expect(listSemantics({ resourceVersion: '7', limit: 0 })).toEqual({ mode: 'NotOlderThan', resourceVersion: 7 });
  });

  it.each([
    [
      'resourceVersionMatch without resourceVersion',
      { resourceVersionMatch: 'NotOlderThan' },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'Exact with 0',
      { resourceVersionMatch: 'Exact', resourceVersion: '0' },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'resourceVersionMatch with continue',
      { resourceVersionMatch: 'NotOlderThan', resourceVersion: '5', continue: 'tok' },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ],
    [
      'unknown match value',
      { resourceVersionMatch: 'Newest', resourceVersion: '5' },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      'several problems at once',
      { resourceVersionMatch: 'Newest', continue: 'tok' },
      'ListOptions.meta.svc.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""]',
    ],
    [
      'sendInitialEvents on a list',
      { sendInitialEvents: true },
      'ListOptions.meta.svc.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    ],
  ])('%s is 422 Invalid', (_name, params, message) => {
    const err = failure(() => listSemantics(params));
    expect(isInvalid(err)).toBe(true);
    expect(err.message).toBe(message);
    expect(err.status.details).toMatchObject({ group: 'meta.svc.io', kind: 'ListOptions' });
    expect(err.status.details?.causes?.[0]?.field).toBe(Object.keys(params).includes('sendInitialEvents') ? 'sendInitialEvents' : 'resourceVersionMatch');
  });

  it('a malformed version is 400 whatever the match', () => {
    for (const resourceVersionMatch of [undefined, 'Exact', 'NotOlderThan']) {
      expect(isBadRequest(failure(() => listSemantics({ resourceVersion: 'abc', resourceVersionMatch })))).toBe(true);
    }
  });
});

describe('watch', () => {
  it.each<[WatchVersionParams, object]>([
    [{}, { mode: 'MostRecent', initialEvents: true, initialEventsEndBookmark: false }],
    [{ resourceVersion: '0' }, { mode: 'Any', initialEvents: true, initialEventsEndBookmark: false }],
    [{ resourceVersion: '9' }, { mode: 'Exact', resourceVersion: 9, initialEvents: false, initialEventsEndBookmark: false }],
    [
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
      { mode: 'MostRecent', initialEvents: true, initialEventsEndBookmark: true },
    ],
    [
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '0' },
      { mode: 'Any', initialEvents: true, initialEventsEndBookmark: true },
    ],
    [
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '9' },
      { mode: 'NotOlderThan', resourceVersion: 9, initialEvents: true, initialEventsEndBookmark: true },
    ],
    [
      { sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' },
      { mode: 'MostRecent', initialEvents: false, initialEventsEndBookmark: false },
    ],
    [
      { sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan', resourceVersion: '9' },
      { mode: 'Exact', resourceVersion: 9, initialEvents: false, initialEventsEndBookmark: false },
    ],
  ])('%j starts %j', (params, expected) => {
    expect(watchSemantics(params)).toEqual(expected);
  });

  it.each<[WatchVersionParams, string]>([
    [
      { resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    [
      { sendInitialEvents: true },
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      { sendInitialEvents: true, resourceVersionMatch: 'Exact', resourceVersion: '1' },
      'ListOptions.meta.svc.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ])('%j is 422 Invalid', (params, message) => {
    const err = failure(() => watchSemantics(params));
    expect(isInvalid(err)).toBe(true);
    expect(err.message).toBe(message);
  });

  it('a malformed version is 400', () => {
    expect(isBadRequest(failure(() => watchSemantics({ resourceVersion: 'x' })))).toBe(true);
  });
});
