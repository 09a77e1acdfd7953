import type { ServerResponse } from 'node:http';
import type { Status } from './status';

/**
 * Answers with a Status body straight on the Node response, so that filters running before any
 * framework routing can refuse a request the same way handlers do.
 */
export function writeStatus(res: ServerResponse, status: Status, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    // Half a response cannot be turned into an error any more; cutting the connection is the only honest signal.
    res.destroy();
    return;
  }
  const body = JSON.stringify(status);
  const retryAfter = status.details?.retryAfterSeconds;
  // Kubernetes turns a Status's retry hint into the header clients act on.
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.statusCode = status.code ?? 500;
  res.end(body);
}
