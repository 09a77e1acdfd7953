import { Agent, request } from 'node:https';

// The processes' probe and metrics endpoints serve a self-signed certificate on loopback.
const insecure = new Agent({ rejectUnauthorized: false, keepAlive: true });

/** GET of a process's own HTTPS endpoint on loopback (`/readyz`, `/metrics`): status and body. */
export function probeGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: insecure, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}
