import { StorageError } from './storage-error';

/** What a continue token remembers: the revision of the first page and the last key returned. */
export interface ContinuePoint {
  revision: number;
  /** The last key returned, relative to the list prefix, so a token cannot reach outside its prefix. */
  after: string;
}

const TOKEN_VERSION = 'store.svc.io/v1';

export function encodeContinue(point: ContinuePoint): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: point.revision, after: point.after })).toString('base64url');
}

export function decodeContinue(token: string): ContinuePoint {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid();
  const { v, rv, after } = parsed as Record<string, unknown>;
  if (v !== TOKEN_VERSION || !Number.isSafeInteger(rv) || (rv as number) < 1 || typeof after !== 'string') {
    throw invalid();
  }
  return { revision: rv as number, after };
}

function invalid(): StorageError {
  return new StorageError('InvalidArgument', 'continue key is not valid');
}
