import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A registry of npm packages on loopback, for installing packed packages the way a user installs
 * published ones: `npm publish --registry <url>` stores a version (the registry protocol's PUT of a
 * packument with the tarball attached), and `npm install` reads the packument and the tarball back.
 * It holds what is published to it and nothing else: a scope pointed at it (`@svc:registry=<url>`)
 * comes from here, every other package from the npm cache or the default registry. One version is
 * published once, as on the public registry.
 */
export interface LocalNpmRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The token `npm publish` is given (`//127.0.0.1:<port>/:_authToken=...`). */
  token: string;
  /** Package name to the versions published, in order. */
  published(): Record<string, string[]>;
  stop(): Promise<void>;
}

interface Packument {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Record<string, unknown>>;
  time: Record<string, string>;
}

const MAX_PUBLISH_BYTES = 64 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PUBLISH_BYTES) {
        reject(new Error('publish body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `/@scope%2fname` or `/@scope/name` (npm writes the first), and `/name`. */
function packageName(path: string): string {
  return decodeURIComponent(path.slice(1)).replace(/\/$/, '');
}

export async function startLocalNpmRegistry(): Promise<LocalNpmRegistry> {
  const packuments = new Map<string, Packument>();
  const tarballs = new Map<string, Buffer>();
  const token = createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 32);
  let base = '';

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 400, { error: error instanceof Error ? error.message : String(error) }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', base).pathname;
    if (req.method === 'GET' || req.method === 'HEAD') {
      const tarball = tarballs.get(path);
      if (tarball) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.length }).end(req.method === 'HEAD' ? undefined : tarball);
        return;
      }
      const packument = packuments.get(packageName(path));
      if (packument) return send(res, 200, packument);
      return send(res, 404, { error: 'Not found' });
    }
    if (req.method === 'PUT') {
      if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'authentication required to publish' });
      const body = JSON.parse((await readBody(req)).toString('utf8')) as {
        name: string;
        'dist-tags'?: Record<string, string>;
        versions: Record<string, Record<string, unknown>>;
        _attachments: Record<string, { data: string }>;
      };
      const name = packageName(path);
      if (body.name !== name) return send(res, 400, { error: `the body names ${body.name}, the path ${name}` });
      const current: Packument = packuments.get(name) ?? { name, 'dist-tags': {}, versions: {}, time: {} };
      for (const [version, manifest] of Object.entries(body.versions)) {
        if (current.versions[version]) return send(res, 403, { error: `cannot publish over the previously published version ${version}` });
        const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
        const attachment = Object.entries(body._attachments).find(([key]) => key.endsWith(file))?.[1];
        if (!attachment) return send(res, 400, { error: `no tarball ${file} attached` });
        const data = Buffer.from(attachment.data, 'base64');
        const tarballPath = `/${name}/-/${file}`;
        const dist = (manifest.dist ?? {}) as { integrity?: string; shasum?: string };
        const integrity = `sha512-${createHash('sha512').update(data).digest('base64')}`;
        if (dist.integrity && dist.integrity !== integrity) return send(res, 400, { error: `the tarball of ${version} does not match its integrity` });
        tarballs.set(tarballPath, data);
        current.versions[version] = {
          ...manifest,
          dist: { ...dist, integrity, shasum: createHash('sha1').update(data).digest('hex'), tarball: `${base}${name}/-/${file}` },
        };
        current.time[version] = new Date().toISOString();
      }
      Object.assign(current['dist-tags'], body['dist-tags'] ?? {});
      packuments.set(name, current);
      return send(res, 201, { ok: true });
    }
    send(res, 405, { error: `${req.method} is not served` });
  }

  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url: base,
    token,
    published: () => Object.fromEntries([...packuments].map(([name, p]) => [name, Object.keys(p.versions)])),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
