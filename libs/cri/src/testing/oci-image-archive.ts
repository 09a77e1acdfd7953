import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pack, type Pack } from 'tar-stream';

/** Where Debian's `busybox-static` puts its one static binary. */
export const BUSYBOX_STATIC = '/bin/busybox';

/** The name under which containerd keeps an image named without registry (`busybox:1.36`). */
export function fullImageName(reference: string): string {
  const slash = reference.indexOf('/');
  const first = slash < 0 ? '' : reference.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let name = hasRegistry ? reference : `docker.io/${slash < 0 ? `library/${reference}` : reference}`;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !lastPart.includes('@')) name += ':latest';
  return name;
}

export interface ImageArchiveOptions {
  /** Names the image is imported under (`busybox:1.36`); each becomes a manifest entry of the index. */
  references: readonly string[];
  /** The image config's Entrypoint and Cmd. */
  entrypoint?: readonly string[];
  cmd?: readonly string[];
  /** The static busybox binary to put in the layer; Debian's busybox-static by default. */
  busybox?: string;
}

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

function tarOf(fill: (archive: Pack) => void): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  fill(archive);
  archive.finalize();
  return done;
}

const EPOCH = new Date(0);

/** One layer: busybox and a link for each applet in /bin, the directories a shell expects, a passwd. */
async function busyboxLayer(busybox: string): Promise<Buffer> {
  const binary = readFileSync(busybox);
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a !== '' && a !== 'busybox' && /^[a-z0-9_.[-]+$/i.test(a))
    .sort();
  return tarOf((archive) => {
    const dir = (name: string, mode = 0o755) => archive.entry({ name, type: 'directory', mode, mtime: EPOCH, uid: 0, gid: 0 });
    const file = (name: string, content: Buffer | string, mode = 0o644) => archive.entry({ name, mode, mtime: EPOCH, uid: 0, gid: 0 }, content);
    dir('bin/');
    file('bin/busybox', binary, 0o755);
    for (const applet of applets) archive.entry({ name: `bin/${applet}`, type: 'symlink', linkname: 'busybox', mode: 0o777, mtime: EPOCH, uid: 0, gid: 0 });
    dir('etc/');
    file('etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
    file('etc/group', 'root:x:0:\nnogroup:x:65534:\n');
    dir('root/', 0o700);
    dir('tmp/', 0o1777);
    dir('var/');
    dir('var/www/');
  });
}

/**
 * An OCI image layout archive (`oci-layout`, `index.json`, `blobs/sha256/...`) of one uncompressed
 * layer holding a static busybox, for `ctr images import`. No registry is needed to run containers
 * from it; the same bytes give the same digests on every machine with the same busybox.
 */
export async function busyboxImageArchive(options: ImageArchiveOptions): Promise<Buffer> {
  const layer = await busyboxLayer(options.busybox ?? BUSYBOX_STATIC);
  const layerDigest = sha256(layer);
  const config = Buffer.from(
    JSON.stringify({
      created: EPOCH.toISOString(),
      architecture: goArch(),
      os: 'linux',
      config: {
        Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        ...(options.entrypoint ? { Entrypoint: [...options.entrypoint] } : {}),
        Cmd: [...(options.cmd ?? ['sh'])],
      },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
      history: [{ created: EPOCH.toISOString(), created_by: 'busybox-static' }],
    }),
  );
  const configDigest = sha256(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length }],
    }),
  );
  const manifestDigest = sha256(manifest);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      manifests: options.references.map((reference) => {
        const name = fullImageName(reference);
        return {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: manifestDigest,
          size: manifest.length,
          annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name.slice(name.lastIndexOf(':') + 1) },
          platform: { architecture: goArch(), os: 'linux' },
        };
      }),
    }),
  );
  return tarOf((archive) => {
    const file = (name: string, content: Buffer) => archive.entry({ name, mode: 0o644, mtime: EPOCH }, content);
    file('oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}'));
    file('index.json', index);
    archive.entry({ name: 'blobs/', type: 'directory', mode: 0o755, mtime: EPOCH });
    archive.entry({ name: 'blobs/sha256/', type: 'directory', mode: 0o755, mtime: EPOCH });
    for (const [digest, content] of [
      [layerDigest, layer],
      [configDigest, config],
      [manifestDigest, manifest],
    ] as const) {
      file(`blobs/sha256/${digest.slice('sha256:'.length)}`, content);
    }
  });
}

function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', ia32: '386' };
  return map[process.arch] ?? process.arch;
}
