/**
 * How the API should answer a refused patch: BadRequest (400) for a malformed patch document,
 * Invalid (422) for a well-formed patch that cannot apply to this object, Conflict (409),
 * UnsupportedMediaType (415) for a patch type the resource does not accept, RequestEntityTooLarge
 * (413) for a patch of more operations than the server applies.
 */
export type PatchErrorKind = 'BadRequest' | 'Invalid' | 'Conflict' | 'UnsupportedMediaType' | 'RequestEntityTooLarge';

export class PatchError extends Error {
  override readonly name = 'PatchError';

  constructor(
    readonly kind: PatchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function badRequest(message: string): PatchError {
  return new PatchError('BadRequest', message);
}

export function invalid(message: string): PatchError {
  return new PatchError('Invalid', message);
}

export function tooLarge(message: string): PatchError {
  return new PatchError('RequestEntityTooLarge', message);
}
