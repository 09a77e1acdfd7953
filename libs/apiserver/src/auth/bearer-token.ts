import type { IncomingMessage } from 'node:http';

/**
 * Longest bearer token read. Node caps all headers at 16 KiB already; this keeps token parsers
 * (JWT decoding above all) from seeing more than any real token needs.
 */
export const MAX_BEARER_TOKEN_LENGTH = 12 * 1024;

/**
 * The token of an `Authorization: Bearer <token>` header: undefined when the request has none,
 * null when the header is there but malformed or too long (Kubernetes refuses such a request).
 */
export function bearerToken(req: IncomingMessage): string | undefined | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  if (space < 0 || trimmed.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = trimmed.slice(space + 1).trim();
  if (token === '' || token.length > MAX_BEARER_TOKEN_LENGTH || /\s/.test(token)) return null;
  return token;
}
