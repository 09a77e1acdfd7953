import {
  isStatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  failureStatus,
  newNotFound,
  newResourceExpired,
  newServiceUnavailable,
  newTimeout,
  newTooLargeResourceVersion,
  newUnsupportedMediaType,
  OPTIMISTIC_LOCK_ERROR_MESSAGE,
  PatchError,
  StatusError,
  StatusReasons,
  type GroupResource,
} from '@svc/machinery';
import { isStorageError } from '@svc/storage';

/** How long a client is told to wait before retrying a read at a revision the store has not reached. */
const TOO_LARGE_RETRY_AFTER_SECONDS = 1;

/**
 * The Status a storage failure answers with, as `libs/storage/src/storage-error.ts` maps them:
 * KeyExists 409 AlreadyExists, KeyNotFound 404, Conflict and InvalidPrecondition 409 Conflict,
 * Expired 410, TooLargeResourceVersion 504, InvalidArgument 400, Unavailable and Closed 503.
 * Anything that already is a StatusError passes through; anything else is a 500 without details.
 */
export function toStatusError(error: unknown, resource: GroupResource, name = ''): StatusError {
  if (isStatusError(error)) return error;
  if (isStorageError(error)) {
    switch (error.code) {
      case 'KeyExists':
        return newAlreadyExists(resource, name);
      case 'KeyNotFound':
        return newNotFound(resource, name);
      case 'Conflict':
        return newConflict(resource, name, OPTIMISTIC_LOCK_ERROR_MESSAGE);
      case 'InvalidPrecondition':
        return newConflict(resource, name, error.message);
      case 'Expired':
        return newResourceExpired(error.message);
      case 'TooLargeResourceVersion':
        return tooLarge(error.message);
      case 'InvalidArgument':
        return newBadRequest(error.message);
      case 'TooLarge':
        return new StatusError(failureStatus(413, StatusReasons.RequestEntityTooLarge, error.message));
      case 'WatchOverflow':
      case 'Unavailable':
      case 'Closed':
        return newServiceUnavailable(error.message);
    }
  }
  if (error instanceof PatchError) {
    switch (error.kind) {
      case 'BadRequest':
        return newBadRequest(error.message);
      case 'Conflict':
        return newConflict(resource, name, error.message);
      case 'UnsupportedMediaType':
        return new StatusError({ ...newUnsupportedMediaType([]).status, message: error.message });
      case 'RequestEntityTooLarge':
        return new StatusError(failureStatus(413, StatusReasons.RequestEntityTooLarge, error.message));
      case 'Invalid':
        // Kubernetes answers a patch that cannot apply with a bare 422 carrying the patch library's text.
        return new StatusError(failureStatus(422, StatusReasons.Invalid, error.message));
    }
  }
  return newInternalError(error instanceof Error ? error : 'an error on the server has prevented the request from succeeding');
}

function tooLarge(message: string): StatusError {
  const match = /Too large resource version: (\d+), current: (\d+)/.exec(message);
  if (match) return newTooLargeResourceVersion(Number(match[1]), Number(match[2]), TOO_LARGE_RETRY_AFTER_SECONDS);
  return newTimeout(message, TOO_LARGE_RETRY_AFTER_SECONDS);
}
