import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { StoredImage } from './containerd-instance';

export interface ImageMirrorOptions {
  /** containerd's content store (`.../io.containerd.content.v1.content`). */
  contentDir: string;
  /** The images containerd holds by name. */
  images(): Promise<StoredImage[]>;
  host: string;
  /** 0 for any free port. */
  port?: number;
}

export interface ImageMirror {
  /** `http://host:port`, for hosts.toml. */
  url: string;
  close(): Promise<void>;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const IMAGES_CACHE_MS = 1_000;

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ errors: [{ code, message }] });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The media type of a manifest or index blob, from its own field or, when absent (OCI allows it), its shape. */
function manifestMediaType(json: Record<string, unknown>): string {
  if (typeof json.mediaType === 'string') return json.mediaType;
  return Array.isArray(json.manifests) ? 'application/vnd.oci.image.index.v1+json' : 'application/vnd.oci.image.manifest.v1+json';
}

/**
 * A read-only registry (the pull side of the OCI distribution API) that serves the images a node's
 * containerd holds, from its content store, as k3s's embedded registry mirror does: every containerd
 * of this machine lists it first in its hosts.toml, so an image imported on one node (`.data/images`,
 * the busybox and Node.js images) is pulled from here by every other node, and an `imagePullPolicy:
 * Always` pull of it succeeds without a registry. containerd asks a mirror with `?ns=<registry>`.
 */
export async function startImageMirror(options: ImageMirrorOptions): Promise<ImageMirror> {
  let cached: { at: number; images: Promise<StoredImage[]> } | undefined;
  const images = () => {
    if (!cached || Date.now() - cached.at > IMAGES_CACHE_MS) cached = { at: Date.now(), images: options.images() };
    return cached.images;
  };
  const blobPath = (digest: string) => join(options.contentDir, 'blobs', 'sha256', digest.slice('sha256:'.length));

  const sendBlob = async (req: IncomingMessage, res: ServerResponse, digest: string, mediaType: string) => {
    const info = await stat(blobPath(digest)).catch(() => undefined);
    if (!info?.isFile()) return fail(res, 404, 'BLOB_UNKNOWN', `${digest} is not held here`);
    res.writeHead(200, { 'Content-Type': mediaType, 'Content-Length': info.size, 'Docker-Content-Digest': digest });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(blobPath(digest))
      .on('error', () => res.destroy())
      .pipe(res);
  };

  const manifest = async (req: IncomingMessage, res: ServerResponse, registry: string, name: string, reference: string) => {
    if (DIGEST.test(reference)) {
      const info = await stat(blobPath(reference)).catch(() => undefined);
      if (!info?.isFile() || info.size > MAX_MANIFEST_BYTES) return fail(res, 404, 'MANIFEST_UNKNOWN', `${reference} is not held here`);
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(await readFile(blobPath(reference), 'utf8')) as Record<string, unknown>;
      } catch {
        return fail(res, 404, 'MANIFEST_UNKNOWN', `${reference} is not a manifest`);
      }
      return sendBlob(req, res, reference, manifestMediaType(json));
    }
    if (!TAG.test(reference)) return fail(res, 400, 'TAG_INVALID', 'invalid tag');
    const wanted = `${registry}/${name}:${reference}`;
    const image = (await images()).find((i) => i.name === wanted);
    if (!image || !DIGEST.test(image.digest)) return fail(res, 404, 'MANIFEST_UNKNOWN', `${wanted} is not held here`);
    return sendBlob(req, res, image.digest, image.mediaType);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, 'UNSUPPORTED', 'this mirror only serves pulls');
    const url = new URL(req.url ?? '/', 'http://mirror');
    res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 });
      return void res.end(req.method === 'HEAD' ? undefined : '{}');
    }
    const match = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (!match || !NAME.test(match[1])) return fail(res, 404, 'NAME_UNKNOWN', 'not found');
    const [, name, kind, reference] = match;
    const registry = url.searchParams.get('ns') ?? 'docker.io';
    if (kind === 'blobs') {
      if (!DIGEST.test(reference)) return fail(res, 400, 'DIGEST_INVALID', 'invalid digest');
      return sendBlob(req, res, reference, 'application/octet-stream');
    }
    return manifest(req, res, registry, name, reference);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) fail(res, 500, 'UNKNOWN', 'the mirror failed to read its store');
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
