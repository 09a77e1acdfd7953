// An extension API server of the tests' own, run as a process of its own
// (`node --import tsx extension-apiserver.ts <connection file> <service name> <namespace>`): it serves
// the group echo.example.com/v1alpha1 over HTTPS with a CA of its own, trusts only the front proxy's
// client certificate as the `extension-apiserver-authentication` ConfigMap describes it (as an
// aggregated server reads it), and echoes the identity the aggregator sent back in every object.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { parse as parseYaml } from 'yaml';

export const ECHO_GROUP = 'echo.example.com';
export const ECHO_VERSION = 'v1alpha1';
const GV = `${ECHO_GROUP}/${ECHO_VERSION}`;

interface AuthenticationInfo {
  ca: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraPrefixes: string[];
}

interface Identity {
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
}

function json(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, message, code });
}

/** GETs a path of the main API server with the connection file's credentials. */
function getFromApiServer(connectionFile: string, path: string): Promise<{ code: number; body: string }> {
  const config = parseYaml(readFileSync(connectionFile, 'utf8')) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
    users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
  };
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  const url = new URL(path, cluster.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
        cert: Buffer.from(user['client-certificate-data'], 'base64'),
        key: Buffer.from(user['client-key-data'], 'base64'),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The front proxy's settings as the main server publishes them (waits for the ConfigMap). */
async function readAuthenticationInfo(connectionFile: string): Promise<AuthenticationInfo> {
  for (let attempt = 0; ; attempt++) {
    const answer = await getFromApiServer(connectionFile, '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication').catch(
      () => undefined,
    );
    if (answer?.code === 200) {
      const data = (JSON.parse(answer.body) as { data?: Record<string, string> }).data ?? {};
      const list = (key: string): string[] => (data[key] ? (JSON.parse(data[key]) as string[]) : []);
      if (data['requestheader-client-ca-file']) {
        return {
          ca: data['requestheader-client-ca-file'],
          allowedNames: list('requestheader-allowed-names'),
          usernameHeaders: list('requestheader-username-headers'),
          groupHeaders: list('requestheader-group-headers'),
          extraPrefixes: list('requestheader-extra-headers-prefix'),
        };
      }
    }
    if (attempt > 200) throw new Error('the extension-apiserver-authentication ConfigMap has no requestheader-client-ca-file');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The identity the front proxy asserts, after checking its certificate as an aggregated server does; undefined when refused. */
function identityOf(req: IncomingMessage, info: AuthenticationInfo): Identity | undefined {
  const socket = req.socket as TLSSocket;
  const peer = socket.getPeerCertificate();
  if (!socket.authorized || peer.subject === undefined) return undefined;
  if (info.allowedNames.length > 0 && !info.allowedNames.includes(String(peer.subject.CN))) return undefined;
  // Every value of a repeated header, as Go's Header.Values reads them (Node joins most of them with commas).
  const header = (name: string): string[] => req.headersDistinct[name.toLowerCase()] ?? [];
  const user = info.usernameHeaders.map((h) => header(h)[0]).find((v) => v !== undefined);
  if (user === undefined) return undefined;
  const extra: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    const prefix = info.extraPrefixes.find((p) => name.startsWith(p.toLowerCase()));
    if (prefix === undefined || values === undefined) continue;
    extra[decodeURIComponent(name.slice(prefix.length))] = values;
  }
  return { user, groups: info.groupHeaders.flatMap((h) => header(h)), extra };
}

function echo(name: string, namespace: string, identity: Identity, req: IncomingMessage, generation = 1): Record<string, unknown> {
  return {
    apiVersion: GV,
    kind: 'Echo',
    metadata: { name, namespace, resourceVersion: String(generation), creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { user: identity.user, groups: identity.groups, extra: identity.extra, path: req.url, method: req.method },
  };
}

const RESOURCES = [
  { name: 'echoes', singularName: 'echo', namespaced: true, kind: 'Echo', verbs: ['get', 'list', 'watch'], shortNames: ['ec'] },
  { name: 'echoes/exec', singularName: '', namespaced: true, kind: 'Echo', verbs: ['create', 'get'] },
];

function discovery(req: IncomingMessage, res: ServerResponse): void {
  if ((req.headers.accept ?? '').includes('as=APIGroupDiscoveryList')) {
    const resources = [
      {
        resource: 'echoes',
        responseKind: { group: ECHO_GROUP, version: ECHO_VERSION, kind: 'Echo' },
        scope: 'Namespaced',
        singularResource: 'echo',
        verbs: ['get', 'list', 'watch'],
        shortNames: ['ec'],
        subresources: [{ subresource: 'exec', responseKind: { group: ECHO_GROUP, version: ECHO_VERSION, kind: 'Echo' }, verbs: ['create', 'get'] }],
      },
    ];
    const body = {
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: [{ metadata: { name: ECHO_GROUP }, versions: [{ version: ECHO_VERSION, resources, freshness: 'Current' }] }],
    };
    return json(res, 200, body, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  }
  const version = { groupVersion: GV, version: ECHO_VERSION };
  json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: ECHO_GROUP, versions: [version], preferredVersion: version }] });
}

function serve(req: IncomingMessage, res: ServerResponse, info: AuthenticationInfo): void {
  const identity = identityOf(req, info);
  if (identity === undefined) return status(res, 401, 'Unauthorized', 'Unauthorized');
  const url = new URL(req.url ?? '/', 'https://echo');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  if (url.pathname === '/apis') return discovery(req, res);
  if (url.pathname === `/apis/${GV}`) return json(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GV, resources: RESOURCES });
  // /apis/<group>/<version>/namespaces/<ns>/echoes[/<name>]
  if (parts.length >= 6 && parts[0] === 'apis' && parts[1] === ECHO_GROUP && parts[2] === ECHO_VERSION && parts[3] === 'namespaces' && parts[5] === 'echoes') {
    const namespace = parts[4];
    if (parts.length === 7) return json(res, 200, echo(parts[6], namespace, identity, req));
    if (parts.length !== 6) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') return watch(req, res, namespace, identity);
    return json(res, 200, { apiVersion: GV, kind: 'EchoList', metadata: { resourceVersion: '1' }, items: [echo('hello', namespace, identity, req)] });
  }
  status(res, 404, 'NotFound', 'the server could not find the requested resource');
}

/** A watch that sends an event at once and another every 200 ms until the client goes. */
function watch(req: IncomingMessage, res: ServerResponse, namespace: string, identity: Identity): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  let generation = 1;
  const send = (type: string): void => {
    res.write(`${JSON.stringify({ type, object: echo('hello', namespace, identity, req, generation++) })}\n`);
  };
  send('ADDED');
  const timer = setInterval(() => send('MODIFIED'), 200);
  res.on('close', () => clearInterval(timer));
}

/**
 * `.../echoes/<name>/exec` upgraded: 101 for `Upgrade: echo`, then every byte back; any other
 * upgrade is refused with a 400, after which the connection stays open for more requests (so the
 * aggregator, not this server, must close it).
 */
function upgrade(req: IncomingMessage, socket: import('node:stream').Duplex, info: AuthenticationInfo): void {
  const identity = identityOf(req, info);
  if (identity === undefined || !(req.url ?? '').includes('/exec')) {
    socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'echo') {
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', message: 'upgrade to echo only', code: 400 });
    socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return;
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Echo-User: ${identity.user}\r\n\r\n`);
  socket.pipe(socket);
}

async function main(connectionFile: string, serviceName: string, namespace: string): Promise<void> {
  const now = Date.now();
  const ca = await generate([{ name: 'commonName', value: `echo-ca@${Math.floor(now / 1000)}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 3_600_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const serving = await generate([{ name: 'commonName', value: `${serviceName}.${namespace}.svc` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 3_600_000),
    ca: { cert: ca.cert, key: ca.private },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2 as const, value: `${serviceName}.${namespace}.svc` }] },
    ],
  });
  const info = await readAuthenticationInfo(connectionFile);
  const server: Server = createServer({ cert: serving.cert, key: serving.private, ca: info.ca, requestCert: true, rejectUnauthorized: false }, (req, res) =>
    serve(req, res, info),
  );
  server.on('upgrade', (req: IncomingMessage, socket: import('node:stream').Duplex) => upgrade(req, socket, info));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port, caBundle: Buffer.from(ca.cert).toString('base64') })}\n`);
}

if (require.main === module) {
  const [connectionFile, serviceName, namespace] = process.argv.slice(2);
  main(connectionFile, serviceName, namespace).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

export interface ExtensionApiServer {
  port: number;
  caBundle: string;
  child: ChildProcess;
  stderr(): string;
  /** Kills the process (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
}

/** Starts the extension server as a process of its own, registered later by the test under `<serviceName>.<namespace>.svc`. */
export async function startExtensionApiServer(connectionFile: string, serviceName: string, namespace: string): Promise<ExtensionApiServer> {
  const program = join(__dirname, 'extension-apiserver.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', program, connectionFile, serviceName, namespace], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ port: number; caBundle: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the extension server did not start in time: ${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { port: number; caBundle: string });
      }
    });
    void exited.then(() => reject(new Error(`the extension server exited: ${stderr}`)));
  });
  return {
    ...started,
    child,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
