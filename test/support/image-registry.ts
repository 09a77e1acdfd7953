import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureDebianPackages } from '@svc/cri';
import { stopChild } from './apiserver-process';

const exec = promisify(execFile);

/** What the registry tests need from Debian: the registry, skopeo to push to it, htpasswd for its users. */
export const REGISTRY_PACKAGES = [
  { name: 'docker-registry', provides: '/usr/bin/docker-registry' },
  { name: 'skopeo', provides: '/usr/bin/skopeo' },
  { name: 'apache2-utils', provides: '/usr/bin/htpasswd' },
];

/** Installs the registry packages when missing (as root); one line saying why they cannot be had otherwise. */
export function registryUnavailable(): string | undefined {
  return ensureDebianPackages(REGISTRY_PACKAGES, { purpose: 'for the image registry tests' });
}

export interface ImageRegistry {
  /** `127.0.0.1:<port>`: the registry part of the image references it serves. */
  host: string;
  /** Copies an image archive (OCI layout, as the project's archives are) into `<host>/<repository>`. */
  push(archive: string, repository: string): Promise<void>;
  stop(): Promise<void>;
}

export interface ImageRegistryOptions {
  /** Basic authentication with this one user (bcrypt in an htpasswd file, as the registry requires). */
  user?: { name: string; password: string };
}

/**
 * Debian's `docker-registry` (distribution 2.8) on a free loopback port, storing under a temporary
 * directory that stop() removes; plain HTTP, as a registry on loopback is served.
 */
export async function startImageRegistry(options: ImageRegistryOptions = {}): Promise<ImageRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-image-registry-'));
  const auth: string[] = [];
  if (options.user) {
    const { stdout } = await exec('htpasswd', ['-Bbn', options.user.name, options.user.password]);
    await writeFile(join(dir, 'htpasswd'), stdout);
    auth.push('auth:', '  htpasswd:', '    realm: registry', `    path: ${join(dir, 'htpasswd')}`);
  }
  const config = join(dir, 'config.yml');
  await writeFile(
    config,
    [
      'version: 0.1',
      'log: { level: info, accesslog: { disabled: true } }',
      'storage:',
      `  filesystem: { rootdirectory: ${join(dir, 'data')} }`,
      'http:',
      '  addr: 127.0.0.1:0',
      `  secret: ${randomBytes(16).toString('hex')}`,
      ...auth,
      '',
    ].join('\n'),
  );
  // The port it got is only in its log, at the info level.
  const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exited = false;
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    await stopChild(child, exit, () => exited);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  let host: string | undefined;
  while (!(host = /listening on (127\.0\.0\.1:\d+)/.exec(output)?.[1])) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not start: ${output.trim().split('\n').slice(-3).join(' ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const served = host;
  return {
    host: served,
    async push(archive, repository) {
      const credentials = options.user ? [`--dest-creds=${options.user.name}:${options.user.password}`] : [];
      await exec(
        'skopeo',
        ['copy', '--insecure-policy', '--dest-tls-verify=false', ...credentials, `oci-archive:${archive}`, `docker://${served}/${repository}`],
        {
          timeout: 60_000,
        },
      );
    },
    stop,
  };
}
