/**
 * Why a storage operation failed. The API server maps each code to a Status:
 *
 * | code                     | meaning                                                         | HTTP |
 * |--------------------------|-----------------------------------------------------------------|------|
 * | KeyExists                | create of a key that is present                                 | 409 AlreadyExists |
 * | KeyNotFound              | get/update/delete of a key that is absent                       | 404 NotFound |
 * | Conflict                 | resourceVersion precondition does not match the stored object   | 409 Conflict |
 * | InvalidPrecondition      | uid precondition does not match the stored object               | 409 Conflict |
 * | Expired                  | revision (or continue token) older than the compacted history   | 410 Expired |
 * | TooLargeResourceVersion  | revision newer than the store, still so after a short wait      | 504 Timeout, "Too large resource version" |
 * | InvalidArgument          | malformed continue token or options                             | 400 BadRequest |
 * | TooLarge                 | the encoded object is larger than a store accepts               | 413 RequestEntityTooLarge |
 * | WatchOverflow            | a watch consumer fell too far behind and was cut off            | clean end of the watch stream |
 * | Unavailable              | the backend cannot be reached or refused to start               | 503 ServiceUnavailable |
 * | Closed                   | the store was closed                                            | 503 ServiceUnavailable |
 */
export type StorageErrorCode =
  | 'KeyExists'
  | 'KeyNotFound'
  | 'Conflict'
  | 'InvalidPrecondition'
  | 'Expired'
  | 'TooLargeResourceVersion'
  | 'InvalidArgument'
  | 'TooLarge'
  | 'WatchOverflow'
  | 'Unavailable'
  | 'Closed';

export class StorageError extends Error {
  override readonly name = 'StorageError';

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    /** The key the failed operation was about, when there is one. */
    readonly key?: string,
  ) {
    super(message);
  }

  static keyExists(key: string): StorageError {
    return new StorageError('KeyExists', `key already exists: ${key}`, key);
  }

  static keyNotFound(key: string): StorageError {
    return new StorageError('KeyNotFound', `key not found: ${key}`, key);
  }

  static conflict(key: string, expected: string, actual: number): StorageError {
    return new StorageError(
      'Conflict',
      `the object has been modified; please apply your changes to the latest version and try again ` +
        `(resourceVersion in precondition: ${expected}, stored: ${actual})`,
      key,
    );
  }

  static invalidPrecondition(key: string, expectedUid: string, actualUid: string | undefined): StorageError {
    return new StorageError('InvalidPrecondition', `Precondition failed: UID in precondition: ${expectedUid}, UID in object meta: ${actualUid ?? ''}`, key);
  }

  static expired(requested: number, compacted: number): StorageError {
    return new StorageError('Expired', `too old resource version: ${requested} (${compacted})`);
  }

  static continueExpired(): StorageError {
    return new StorageError(
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. ' + 'You can start a new list without the continue parameter.',
    );
  }

  static tooLarge(requested: number, current: number): StorageError {
    return new StorageError('TooLargeResourceVersion', `Too large resource version: ${requested}, current: ${current}`);
  }

  static objectTooLarge(key: string, bytes: number, limit: number): StorageError {
    return new StorageError('TooLarge', `the object is too large to store: ${bytes} bytes, the limit is ${limit}`, key);
  }

  static closed(): StorageError {
    return new StorageError('Closed', 'storage is closed');
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}
