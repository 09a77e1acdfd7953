import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import type { TestEnvironment } from './test-environment';

/** An answer as the auth specs read it: the status, the JSON body (or `{ raw }` when not JSON) and the headers. */
export interface HttpsAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/**
 * One HTTPS request to a test server, with headers and an optional client certificate of the
 * caller's choosing (what the typed client does not let a test vary: credentials, raw paths).
 */
export function httpsCall(
  url: string,
  ca: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  identity?: { cert: string; key: string },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    // A Buffer goes as it is (a protobuf body); anything else as JSON.
    const text = body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      {
        method,
        ca,
        agent: false,
        headers: {
          // Node sends no length of its own for a DELETE's body.
          ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}),
          ...headers,
        },
        ...identity,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(raw) as Record<string, unknown>;
          } catch {
            parsed = { raw };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** One request to a test environment as its administrator (its client certificate). */
export function adminCall(env: TestEnvironment, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpsAnswer> {
  const c = env.clientConfig;
  return httpsCall(env.url, c.ca!, method, path, headers, body, { cert: c.clientCert!, key: c.clientKey! });
}
