import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createStorage, objectStorageKey, type Storage, type StoredObject } from '@svc/storage';

/** The store's compaction interval when the API server's flag is left at its default (5m). */
const SERVER_DEFAULT_COMPACTION_MS = 5 * 60 * 1000;
const STORE_FLAG = '--store=';
const CREATE_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/;

/**
 * The reference the API server is measured against: a bare Node HTTPS handler, run as its own process
 * like the server, with the same certificate. Everything the API server does beyond what this does is
 * what the ratios measure.
 * - GET of fixed paths answers fixed bytes (the bytes the API server returned for the same requests).
 * - GET with `watch=1` keeps the answer open; a PUT of `<path>/<name>` then writes
 *   `{"type":"MODIFIED","object":<the PUT body>}` to every open watch of `<path>`, encoded once and
 *   written as one pre-framed chunk per socket (the least any server can do per watcher), and answers
 *   the body back.
 * - With `--store=<dir>`, a POST of a ConfigMap to `/api/v1/namespaces/<ns>/configmaps` parses the
 *   JSON, sets a uid and creation time and creates it in the embedded store opened on `<dir>` (as the
 *   API server opens its own), and answers 201 with the stored JSON: the least any API server over
 *   this store can do per create.
 *
 * Usage: node bare-server.js <cert.pem> <key.pem> [--store=<dir>] [<path>=<body file> ...]
 * Prints `listening <port>` once it accepts connections on 127.0.0.1.
 */
async function main(): Promise<void> {
  const [certFile, keyFile, ...rest] = process.argv.slice(2);
  if (!certFile || !keyFile) {
    process.stderr.write('usage: bare-server <cert.pem> <key.pem> [--store=<dir>] [<path>=<body file> ...]\n');
    process.exit(2);
  }
  const storeDir = rest.find((arg) => arg.startsWith(STORE_FLAG))?.slice(STORE_FLAG.length);
  const bodies = new Map<string, Buffer>();
  for (const route of rest.filter((arg) => !arg.startsWith(STORE_FLAG))) {
    const at = route.indexOf('=');
    bodies.set(route.slice(0, at), readFileSync(route.slice(at + 1)));
  }
  const storage = storeDir ? await createStorage({ backend: 'embedded', dataDir: storeDir, compactionIntervalMs: SERVER_DEFAULT_COMPACTION_MS }) : undefined;
  const watches = new Map<string, Set<ServerResponse>>();

  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const query = req.url?.indexOf('?') ?? -1;
    const path = (query < 0 ? req.url : req.url?.slice(0, query)) ?? '';
    const search = query < 0 ? '' : (req.url?.slice(query) ?? '');
    if (req.method === 'GET' && /[?&]watch=(1|true)(&|$)/.test(search)) return openWatch(path, res);
    if (req.method === 'PUT') return readBody(req, (body) => broadcast(path, body, res));
    if (req.method === 'POST' && storage && CREATE_PATH.test(path)) return readBody(req, (body) => create(storage, path, body, res));
    const body = req.method === 'GET' ? bodies.get(path) : undefined;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });

  function openWatch(path: string, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const open = watches.get(path) ?? new Set<ServerResponse>();
    watches.set(path, open);
    open.add(res);
    res.on('close', () => open.delete(res));
  }

  function broadcast(path: string, body: Buffer, res: ServerResponse): void {
    const event = Buffer.concat([Buffer.from('{"type":"MODIFIED","object":'), body, Buffer.from('}\n')]);
    const frame = Buffer.concat([Buffer.from(`${event.length.toString(16)}\r\n`), event, Buffer.from('\r\n')]);
    for (const watch of watches.get(path.slice(0, path.lastIndexOf('/'))) ?? []) watch.socket?.write(frame);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  }

  function create(store: Storage, path: string, body: Buffer, res: ServerResponse): void {
    const namespace = CREATE_PATH.exec(path)?.[1] ?? '';
    const object = JSON.parse(body.toString('utf8')) as StoredObject & {
      metadata: { name: string; namespace?: string; uid?: string; creationTimestamp?: string };
    };
    object.metadata.namespace = namespace;
    object.metadata.uid = randomUUID();
    object.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const key = objectStorageKey({ prefix: '/registry', group: '', resource: 'configmaps', namespace, name: object.metadata.name });
    store.create(key, object).then(
      (stored) => {
        const json = Buffer.from(JSON.stringify(stored));
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': json.length }).end(json);
      },
      (error: unknown) => res.writeHead(409, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  }

  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => {
    server.close(() => void (storage?.close() ?? Promise.resolve()).finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}

function readBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(Buffer.concat(chunks)));
}

void main();
