import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface ImageDirectoryOptions {
  dir: string;
  /** Imports one archive; a failure is reported and retried when the file changes again. */
  importFile(file: string): Promise<void>;
  /** Told of each import and each failure, one line each. */
  log?: (line: string) => void;
  /** How long a file must stay the same size before it is imported (a copy still being written is not). */
  settleMs?: number;
}

export interface ImageDirectory {
  /** Resolves once every archive present at the start has been imported (or failed). */
  ready: Promise<void>;
  /** Imports whatever is new or changed now (as a change seen by the watch does). */
  rescan(): Promise<void>;
  close(): void;
}

/**
 * Keeps the images of a directory of archives (`*.tar`: OCI layouts or `docker save` output, as
 * `docker save`, `buildah push oci-archive:` and `skopeo copy` write them) imported: each at the start,
 * then each one added or replaced, once its size has settled, as k3s does with its air-gap images.
 */
export function watchImageDirectory(options: ImageDirectoryOptions): ImageDirectory {
  const settleMs = options.settleMs ?? 500;
  const imported = new Map<string, string>(); // file -> size:mtime it was imported at
  let scanning: Promise<void> = Promise.resolve();
  let again = false;
  let closed = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;

  const signature = async (file: string) => {
    const info = await stat(file).catch(() => undefined);
    return info?.isFile() ? `${info.size}:${info.mtimeMs}` : undefined;
  };
  const scanOnce = async () => {
    const names = (await readdir(options.dir).catch(() => [])).filter((n) => n.endsWith('.tar')).sort();
    for (const name of names) {
      if (closed) return;
      const file = join(options.dir, name);
      const before = await signature(file);
      if (before === undefined || imported.get(file) === before) continue;
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      const after = await signature(file);
      if (after !== before) {
        again = true; // still being written: look again later
        continue;
      }
      imported.set(file, after);
      try {
        await options.importFile(file);
        options.log?.(`imported the images of ${file}`);
      } catch (error) {
        options.log?.(`could not import ${file}: ${(error as Error).message}`);
      }
    }
  };
  const scan = (): Promise<void> => {
    scanning = scanning.then(async () => {
      do {
        again = false;
        await scanOnce();
      } while (again && !closed);
    });
    return scanning;
  };
  const ready = mkdir(options.dir, { recursive: true }).then(() => {
    if (closed) return;
    watcher = watch(options.dir, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void scan(), 200);
    });
    watcher.on('error', (error) => options.log?.(`watching ${options.dir}: ${error.message}`));
    return scan();
  });
  return {
    ready,
    rescan: scan,
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
