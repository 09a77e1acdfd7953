import { Agent, request as httpsRequest } from 'node:https';

/** One HTTPS server the benchmark talks to, on loopback, verified against the cert dir's CA. */
export interface HttpsTarget {
  host: string;
  port: number;
  ca: string;
}

export interface Reply {
  status: number;
  body: Buffer;
}

/** A keep-alive agent holding up to `sockets` connections to each target. */
export function keepAliveAgent(target: HttpsTarget, sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, ca: target.ca });
}

const JSON_TYPE = 'application/json';

/** One request with the whole response body read; rejects on transport errors or after `timeoutMs`. */
export function send(
  agent: Agent,
  target: HttpsTarget,
  method: string,
  path: string,
  body?: string | Buffer,
  contentType = JSON_TYPE,
  timeoutMs = 30_000,
): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const headers: Record<string, string | number> = { accept: JSON_TYPE };
    if (body !== undefined) {
      headers['content-type'] = contentType;
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = httpsRequest({ agent, host: target.host, port: target.port, method, path, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Like `send`, but any status outside `expected` is an error carrying the start of the body. */
export async function sendExpecting(
  expected: readonly number[],
  agent: Agent,
  target: HttpsTarget,
  method: string,
  path: string,
  body?: string | Buffer,
  contentType?: string,
): Promise<Reply> {
  const reply = await send(agent, target, method, path, body, contentType);
  if (!expected.includes(reply.status)) {
    throw new Error(`${method} ${path} answered ${reply.status}: ${reply.body.toString('utf8', 0, 300)}`);
  }
  return reply;
}
