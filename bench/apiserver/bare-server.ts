import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The reference the API server is measured against: a bare Node HTTPS handler, run as its own process
 * like the server, answering GET of fixed paths with fixed bytes (the bytes the API server returned for
 * the same requests). Everything the API server does beyond TLS, HTTP parsing and writing a body is
 * what the ratio measures.
 *
 * Usage: node bare-server.js <cert.pem> <key.pem> <path>=<body file> [<path>=<body file> ...]
 * Prints `listening <port>` once it accepts connections on 127.0.0.1.
 */
function main(): void {
  const [certFile, keyFile, ...routes] = process.argv.slice(2);
  if (!certFile || !keyFile || routes.length === 0) {
    process.stderr.write('usage: bare-server <cert.pem> <key.pem> <path>=<body file> ...\n');
    process.exit(2);
  }
  const bodies = new Map<string, Buffer>();
  for (const route of routes) {
    const at = route.indexOf('=');
    bodies.set(route.slice(0, at), readFileSync(route.slice(at + 1)));
  }
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const query = req.url?.indexOf('?') ?? -1;
    const path = query < 0 ? req.url : req.url?.slice(0, query);
    const body = req.method === 'GET' && path !== undefined ? bodies.get(path) : undefined;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

main();
