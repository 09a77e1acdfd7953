import type { Status } from './meta/status';
import { StatusError } from './status';
import {
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
} from './status-errors';
import {
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpiredOrGone,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  reasonForError,
  statusFromError,
  suggestsClientDelay,
} from './status-predicates';

type Predicate = (err: unknown) => boolean;

const table: Array<[string, StatusError, Predicate]> = [
  ['NotFound', newNotFound('pods', 'x'), isNotFound],
  ['AlreadyExists', newAlreadyExists('pods', 'x'), isAlreadyExists],
  ['Conflict', newConflict('pods', 'x', 'stale'), isConflict],
  ['Invalid', newInvalid('Pod', 'x', []), isInvalid],
  ['Gone', newGone('gone'), isGone],
  ['Expired', newResourceExpired('old'), isResourceExpired],
  ['TooManyRequests', newTooManyRequests('slow down', 1), isTooManyRequests],
  ['Timeout', newTimeout('late', 0), isTimeout],
  ['ServerTimeout', newServerTimeout('pods', 'get', 1), isServerTimeout],
  ['NotAcceptable', newNotAcceptable(['application/json']), isNotAcceptable],
  ['UnsupportedMediaType', newUnsupportedMediaType(['application/json']), isUnsupportedMediaType],
  ['MethodNotAllowed', newMethodNotSupported('pods', 'watch'), isMethodNotSupported],
  ['Forbidden', newForbidden('pods', 'x', 'no'), isForbidden],
  ['Unauthorized', newUnauthorized(), isUnauthorized],
  ['RequestEntityTooLarge', newRequestEntityTooLarge('big'), isRequestEntityTooLarge],
  ['InternalError', newInternalError('oops'), isInternalError],
  ['ServiceUnavailable', newServiceUnavailable('down'), isServiceUnavailable],
  ['BadRequest', newBadRequest('bad'), isBadRequest],
];

/** What a client holds after decoding an error body from the wire. */
function overTheWire(err: StatusError): Status {
  return JSON.parse(JSON.stringify(err)) as Status;
}

describe('predicates', () => {
  it.each(table)('%s is recognised as a StatusError, as a Status body and wrapped in an error', (_name, err, predicate) => {
    expect(predicate(err)).toBe(true);
    expect(predicate(overTheWire(err))).toBe(true);
    expect(predicate({ status: overTheWire(err) })).toBe(true);
  });

  it.each(table)('%s matches no other predicate', (name, err) => {
    for (const [other, , predicate] of table) {
      if (other === name) continue;
      // A 500 InternalError and a 500 ServerTimeout are distinct: ServerTimeout is a known reason.
      expect([other, predicate(err)]).toEqual([other, false]);
    }
  });

  it('rejects plain errors and junk', () => {
    for (const value of [new Error('not found'), 'NotFound', 404, null, undefined, {}, { kind: 'Pod', code: 404 }]) {
      expect(isNotFound(value)).toBe(false);
      expect(reasonForError(value)).toBe('');
    }
  });

  it('falls back on the code when the reason is unknown', () => {
    const unknown = (code: number): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code });
    expect(isNotFound(unknown(404))).toBe(true);
    expect(isConflict(unknown(409))).toBe(true);
    expect(isAlreadyExists(unknown(409))).toBe(false);
    expect(isInvalid(unknown(422))).toBe(true);
    expect(isGone(unknown(410))).toBe(true);
    expect(isResourceExpired(unknown(410))).toBe(false);
    expect(isTimeout(unknown(504))).toBe(true);
    expect(isInternalError(unknown(500))).toBe(true);
    expect(isServerTimeout(unknown(500))).toBe(false);
    expect(isNotFound({ ...unknown(404), reason: 'SomethingNew' })).toBe(true);
    // A known reason wins over the code.
    expect(isConflict(newAlreadyExists('pods', 'x'))).toBe(false);
  });

  it('429 and 413 count by code whatever the reason', () => {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 429 };
    expect(isTooManyRequests(s)).toBe(true);
    expect(isRequestEntityTooLarge({ ...s, code: 413 })).toBe(true);
  });

  it('groups the two 410 reasons for relisting', () => {
    expect(isExpiredOrGone(newGone('x'))).toBe(true);
    expect(isExpiredOrGone(newResourceExpired('x'))).toBe(true);
    expect(isExpiredOrGone(newNotFound('pods', 'x'))).toBe(false);
  });

  it('recognises the too-large resource version timeout', () => {
    expect(isTooLargeResourceVersion(newTooLargeResourceVersion(5, 3, 1))).toBe(true);
    expect(isTooLargeResourceVersion(overTheWire(newTooLargeResourceVersion(5, 3, 1)))).toBe(true);
    expect(isTooLargeResourceVersion(newTimeout('late', 1))).toBe(false);
  });

  it('suggests a client delay when the server asked for one', () => {
    expect(suggestsClientDelay(newTooManyRequests('x', 3))).toBe(3);
    expect(suggestsClientDelay(newServerTimeout('pods', 'list', 2))).toBe(2);
    expect(suggestsClientDelay(newTimeout('x', 0))).toBeUndefined();
    expect(suggestsClientDelay(newNotFound('pods', 'x'))).toBeUndefined();
    expect(suggestsClientDelay(new Error('x'))).toBeUndefined();
  });

  it('works on StatusErrors from another copy of the module', () => {
    const foreign = Object.assign(new Error('pods "x" not found'), { name: 'StatusError', status: overTheWire(newNotFound('pods', 'x')) });
    expect(isNotFound(foreign)).toBe(true);
    expect(statusFromError(foreign).code).toBe(404);
  });
});

describe('statusFromError', () => {
  it('passes StatusErrors and Status bodies through', () => {
    const err = newConflict('pods', 'x', 'stale');
    expect(statusFromError(err)).toEqual(err.status);
    expect(statusFromError(overTheWire(err))).toEqual(err.status);
  });

  it('turns anything else into a generic 500 that leaks nothing', () => {
    for (const thrown of [new Error('ECONNREFUSED mongodb://user:secret@db:27017'), 'boom', 42, null, undefined, { weird: true }]) {
      const s = statusFromError(thrown);
      expect(s).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Internal error occurred: an error on the server has prevented the request from succeeding',
        reason: 'InternalError',
        details: { causes: [{ message: 'an error on the server has prevented the request from succeeding' }] },
        code: 500,
      });
      expect(JSON.stringify(s)).not.toContain('secret');
    }
  });

  it('fills in a missing code and status', () => {
    const partial = { kind: 'Status', apiVersion: 'v1', metadata: {}, reason: 'NotFound', message: 'm' } as unknown as Status;
    expect(statusFromError(partial)).toMatchObject({ status: 'Failure', code: 500, reason: 'NotFound' });
  });
});
