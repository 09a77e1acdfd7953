import { type Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface HttpsResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpsRequestOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** PEM the server certificate must chain to; the request fails verification without it. */
  ca?: string;
  agent?: Agent;
}

/** One HTTPS exchange against a test server, with certificate verification on. */
export function httpsFetch(url: string, options: HttpsRequestOptions = {}): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: options.method ?? 'GET', headers: options.headers, ca: options.ca, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
