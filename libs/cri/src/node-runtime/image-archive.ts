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

/** The registry host of an image reference (`docker.io` for `busybox`). */
export function imageRegistry(reference: string): string {
  const name = fullImageName(reference);
  return name.slice(0, name.indexOf('/'));
}

/** What goes into an image's config (`config` of the OCI image configuration). */
export interface ImageRunConfig {
  env?: readonly string[];
  entrypoint?: readonly string[];
  cmd?: readonly string[];
  workingDir?: string;
  user?: string;
  labels?: Readonly<Record<string, string>>;
}

export interface ImageArchiveOptions {
  /** Names the image is imported under (`busybox:1.36`). */
  references: readonly string[];
  /** Uncompressed layer tars, lowest first. */
  layers: readonly Buffer[];
  config?: ImageRunConfig;
  /** Says where the layers came from, in the image's history. */
  createdBy: string;
}

const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const EPOCH = new Date(0);

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

/** The entries of one layer, written by `fill` with helpers for directories, files and symlinks. */
export interface LayerWriter {
  dir(name: string, mode?: number, owner?: number): void;
  file(name: string, content: Buffer | string, mode?: number, owner?: number): void;
  symlink(name: string, target: string): void;
}

/** An uncompressed layer tar: entries owned by root (unless given), dated at the epoch, so the same content gives the same digest. */
export function layerTar(fill: (layer: LayerWriter) => void): Promise<Buffer> {
  return tarOf((archive) =>
    fill({
      dir: (name, mode = 0o755, owner = 0) =>
        archive.entry({ name: name.endsWith('/') ? name : `${name}/`, type: 'directory', mode, mtime: EPOCH, uid: owner, gid: owner }),
      file: (name, content, mode = 0o644, owner = 0) => archive.entry({ name, mode, mtime: EPOCH, uid: owner, gid: owner }, content),
      symlink: (name, target) => archive.entry({ name, type: 'symlink', linkname: target, mode: 0o777, mtime: EPOCH, uid: 0, gid: 0 }),
    }),
  );
}

/** busybox and a link for each of its applets in /bin, the directories a shell expects, a passwd and a group. */
export function busyboxLayer(busybox: string = BUSYBOX_STATIC): Promise<Buffer> {
  const binary = readFileSync(busybox);
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a !== '' && a !== 'busybox' && /^[a-z0-9_.[-]+$/i.test(a))
    .sort();
  return layerTar((layer) => {
    layer.dir('bin');
    layer.file('bin/busybox', binary, 0o755);
    for (const applet of applets) layer.symlink(`bin/${applet}`, 'busybox');
    layer.dir('etc');
    layer.file('etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
    layer.file('etc/group', 'root:x:0:\nnogroup:x:65534:\n');
    layer.dir('root', 0o700);
    layer.dir('tmp', 0o1777);
    layer.dir('var');
    layer.dir('var/www');
  });
}

function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', ia32: '386' };
  return map[process.arch] ?? process.arch;
}

function imageConfig(options: ImageArchiveOptions, diffIds: string[]): Buffer {
  const c = options.config ?? {};
  return Buffer.from(
    JSON.stringify({
      created: EPOCH.toISOString(),
      architecture: goArch(),
      os: 'linux',
      config: {
        Env: [...(c.env ?? [DEFAULT_PATH])],
        ...(c.entrypoint ? { Entrypoint: [...c.entrypoint] } : {}),
        ...(c.cmd ? { Cmd: [...c.cmd] } : {}),
        ...(c.workingDir ? { WorkingDir: c.workingDir } : {}),
        ...(c.user ? { User: c.user } : {}),
        ...(c.labels ? { Labels: { ...c.labels } } : {}),
      },
      rootfs: { type: 'layers', diff_ids: diffIds },
      history: diffIds.map(() => ({ created: EPOCH.toISOString(), created_by: options.createdBy })),
    }),
  );
}

/**
 * An image archive that both `ctr images import` (and containerd's CRI, buildah, skopeo as
 * `oci-archive:`) and `docker load` of Docker 20.10 read: an OCI image layout (`oci-layout`,
 * `index.json`, `blobs/sha256/...`) with Docker's `manifest.json` beside it pointing at the same
 * blobs, as `docker save` of Docker 25 writes. Layers stay uncompressed; the same bytes in give the
 * same digests on every machine.
 */
export async function imageArchive(options: ImageArchiveOptions): Promise<Buffer> {
  const layerDigests = options.layers.map(sha256);
  const config = imageConfig(options, layerDigests);
  const configDigest = sha256(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: options.layers.map((layer, i) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigests[i], size: layer.length })),
    }),
  );
  const manifestDigest = sha256(manifest);
  const names = options.references.map(fullImageName);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: names.map((name) => ({
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: manifestDigest,
        size: manifest.length,
        annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name.slice(name.lastIndexOf(':') + 1) },
        platform: { architecture: goArch(), os: 'linux' },
      })),
    }),
  );
  const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  const dockerManifest = Buffer.from(
    JSON.stringify([{ Config: blobPath(configDigest), RepoTags: options.references.map(dockerTag), Layers: layerDigests.map(blobPath) }]),
  );
  return tarOf((archive) => {
    const file = (name: string, content: Buffer) => archive.entry({ name, mode: 0o644, mtime: EPOCH }, content);
    file('oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}'));
    file('index.json', index);
    file('manifest.json', dockerManifest);
    archive.entry({ name: 'blobs/', type: 'directory', mode: 0o755, mtime: EPOCH });
    archive.entry({ name: 'blobs/sha256/', type: 'directory', mode: 0o755, mtime: EPOCH });
    const blobs = new Map<string, Buffer>([[configDigest, config], [manifestDigest, manifest], ...options.layers.map((l, i) => [layerDigests[i], l] as const)]);
    for (const [digest, content] of blobs) file(blobPath(digest), content);
  });
}

/** The name Docker lists an image under: no `docker.io/library/` for official images, a tag always. */
function dockerTag(reference: string): string {
  const name = fullImageName(reference);
  return name.replace(/^docker\.io\/library\//, '').replace(/^docker\.io\//, '');
}

export interface BusyboxImageOptions {
  references: readonly string[];
  entrypoint?: readonly string[];
  cmd?: readonly string[];
  /** The static busybox binary to put in the layer; Debian's busybox-static by default. */
  busybox?: string;
}

/** An image of one layer holding a static busybox (`sh` by default), as {@link imageArchive} writes it. */
export async function busyboxImageArchive(options: BusyboxImageOptions): Promise<Buffer> {
  return imageArchive({
    references: options.references,
    layers: [await busyboxLayer(options.busybox)],
    config: { entrypoint: options.entrypoint, cmd: options.cmd ?? ['sh'] },
    createdBy: 'busybox-static',
  });
}

/** The sandbox ("pause") image the node's containerd names in `sandbox_image`, made locally as no registry serves one here. */
export const PAUSE_IMAGE = 'svc.local/pause:1.0';

/** The pause container: sleeps until told to stop, and stops at once on SIGTERM. */
const PAUSE_ENTRYPOINT = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"];

/** The pause image, from busybox-static. */
export function pauseImageArchive(busybox?: string): Promise<Buffer> {
  return busyboxImageArchive({ references: [PAUSE_IMAGE], entrypoint: PAUSE_ENTRYPOINT, cmd: [], busybox });
}
