import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { busyboxLayer, imageArchive, layerTar } from './image-archive';

/** The Node.js base image `npm start` makes from this machine's node (`FROM svc.local/node:20`). */
export function nodeBaseImageName(version: string = process.version): string {
  return `svc.local/node:${version.replace(/^v/, '').split('.')[0]}`;
}

/** The uid and gid of the image's `node` user, as in the official Node images. */
export const NODE_USER_ID = 1000;

/** The shared libraries a dynamically linked binary loads (its interpreter included), by their real paths, from `ldd`. */
export function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  const paths = new Set<string>();
  for (const line of out.split('\n')) {
    const match = /(?:=>\s*)?(\/[^\s]+)\s+\(0x/.exec(line);
    if (match) paths.add(match[1]);
  }
  return [...paths];
}

const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/**
 * The layer of node: the binary under /usr/local/bin, each library it loads at the path the loader
 * looks for it (and its real path), the CA bundle, and the `node` user with a home.
 */
export function nodeLayer(node: string = process.execPath): Promise<Buffer> {
  const binary = readFileSync(node);
  const libraries = sharedLibraries(node);
  return layerTar((layer) => {
    const made = new Set<string>();
    const parents = (path: string) => {
      const parts = path.split('/').filter((p) => p !== '');
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (!made.has(dir)) {
          made.add(dir);
          layer.dir(dir);
        }
      }
    };
    parents('usr/local/bin/node');
    layer.file('usr/local/bin/node', binary, 0o755);
    for (const library of libraries) {
      const real = realpathSync(library);
      parents(real);
      layer.file(real.slice(1), readFileSync(real), 0o755);
      if (real !== library) {
        parents(library);
        layer.symlink(library.slice(1), real);
      }
    }
    if (existsSync(CA_BUNDLE)) {
      parents(CA_BUNDLE);
      layer.file(CA_BUNDLE.slice(1), readFileSync(CA_BUNDLE));
    }
    parents('etc/passwd');
    layer.file(
      'etc/passwd',
      `root:x:0:0:root:/root:/bin/sh\nnode:x:${NODE_USER_ID}:${NODE_USER_ID}::/home/node:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n`,
    );
    layer.file('etc/group', `root:x:0:\nnode:x:${NODE_USER_ID}:\nnogroup:x:65534:\n`);
    layer.dir('home');
    layer.dir('home/node', 0o755, NODE_USER_ID);
  });
}

/**
 * A Node.js base image made from this machine's node binary and the libraries it loads, over a busybox
 * layer (a shell and the usual tools), with the `node` user (uid 1000) of the official images:
 * `FROM svc.local/node:20` builds an app image without any registry.
 */
export async function nodeBaseImageArchive(options: { references?: readonly string[]; node?: string; busybox?: string } = {}): Promise<Buffer> {
  return imageArchive({
    references: options.references ?? [nodeBaseImageName()],
    layers: [await busyboxLayer(options.busybox), await nodeLayer(options.node)],
    config: { cmd: ['node'], env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `NODE_VERSION=${process.version.slice(1)}`] },
    createdBy: `node ${process.version} and the libraries it loads, over busybox-static`,
  });
}
