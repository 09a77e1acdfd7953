import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { busyboxLayer, imageArchive, layerTar, nodeLayer, type ImageRunConfig, type LayerWriter } from '@svc/cri';

/** Adds `from` (a file, a symlink or a directory, recursively) to a layer at `to`, keeping modes and links. */
function addTree(layer: LayerWriter, from: string, to: string): void {
  const stat = lstatSync(from);
  if (stat.isSymbolicLink()) layer.symlink(to, readlinkSync(from));
  else if (stat.isDirectory()) {
    layer.dir(to, stat.mode & 0o777);
    for (const entry of readdirSync(from).sort()) addTree(layer, join(from, entry), `${to}/${entry}`);
  } else if (stat.isFile()) layer.file(to, readFileSync(from), stat.mode & 0o777);
}

export interface AppImageOptions {
  /** Names the image is imported under. */
  references: readonly string[];
  /** The project whose files go into the image. */
  projectDir: string;
  /** Paths inside the project copied to the same paths under `workingDir`. */
  paths: readonly string[];
  /** Where they go, and the container's working directory. */
  workingDir: string;
  config: Omit<ImageRunConfig, 'workingDir'>;
}

/**
 * An application image over the Node.js base `npm start` makes (busybox and this machine's node): one
 * layer more with the project's built files, as a Dockerfile's `COPY` of them onto `FROM
 * svc.local/node:<major>` would write it, made without a container engine.
 */
export async function appImageArchive(options: AppImageOptions): Promise<Buffer> {
  const workdir = options.workingDir.replace(/^\/+|\/+$/g, '');
  const app = await layerTar((layer) => {
    const parts = workdir.split('/');
    for (let i = 1; i <= parts.length; i++) layer.dir(parts.slice(0, i).join('/'));
    for (const path of options.paths) addTree(layer, join(options.projectDir, path), `${workdir}/${path}`);
  });
  return imageArchive({
    references: options.references,
    layers: [await busyboxLayer(), await nodeLayer(), app],
    config: { ...options.config, workingDir: `/${workdir}` },
    createdBy: `${options.paths.join(', ')} of ${options.projectDir.split('/').pop() ?? 'the project'} over node ${process.version} and busybox-static`,
  });
}
