import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Pod, Volume } from '@svc/api';
import { claimNameOf, ClaimVolumeError, resolveClaimVolume, type ClaimReader, type ClaimVolume } from './claim-volumes';
import { setVolumeOwnership } from './volume-ownership';
import { errorMessage } from '@svc/machinery';
import { quantityValue } from '@svc/api';
import { configEntries, configValue, type ConfigKind, type ConfigObjects } from '../objects/config-objects';
import { ContainerConfigError } from '../objects/container-config-error';
import { podFieldValue, resourceFieldValue, type PodFacts } from '../objects/downward-api';
import { writeAtomically, type FileProjection } from './atomic-writer';
import type { ServiceAccountTokenManager } from './service-account-token-manager';

const run = promisify(execFile);

/**
 * A volume cannot be set up (yet): the pod's containers wait, and a `FailedMount` event says why
 * (`event`, when the whole message is given, as for claims that cannot be mounted yet).
 */
export class VolumeError extends Error {
  constructor(
    message: string,
    readonly event?: string,
  ) {
    super(message);
    this.name = 'VolumeError';
  }
}

/** A volume set up for a pod: its path on the host, and whether every container gets it read only. */
export interface MountedVolume {
  path: string;
  readOnly: boolean;
}

/** A volume of a pod whose use the stats report: where it is on the host and, for a claim, which one. */
export interface StatsVolume {
  name: string;
  path: string;
  pvcRef?: { name: string; namespace: string };
  /** Counted in the pod's ephemeral storage (emptyDir and the projected kinds). */
  ephemeral?: boolean;
}

const DEFAULT_MODE = 0o644;
/** A projected token's lifetime when its source names none (the API's default). */
const DEFAULT_TOKEN_SECONDS = 3600;

/** The directory of a pod's own files below the agent's root: volumes, hosts file, termination logs. */
export function podDirectory(rootDir: string, uid: string): string {
  return join(rootDir, 'pods', uid);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The mount points below `dir`, deepest first. */
async function mountsBelow(dir: string): Promise<string[]> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  return mounts
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => point !== undefined && point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

async function isMountPoint(path: string): Promise<boolean> {
  const mounts = await readFile('/proc/self/mounts', 'utf8').catch(() => '');
  return mounts.split('\n').some((line) => line.split(' ')[1] === path);
}

/**
 * Sets up the volumes of pods on this node and keeps the projected ones (configMap, secret,
 * downwardAPI, projected) up to date: emptyDir is a directory (tmpfs for medium Memory), hostPath
 * the host's path checked against its type, the others files written atomically.
 */
export class VolumeManager {
  /** The claims of each pod resolved once (by pod uid, then volume name): a running pod's volume does not move. */
  private readonly claims = new Map<string, Map<string, ClaimVolume>>();
  /** The volumes (`<pod uid>/<volume>`) given to the pod's fsGroup already: the walk is done once per pod. */
  private readonly owned = new Set<string>();

  constructor(
    private readonly rootDir: string,
    private readonly objects: ConfigObjects,
    private readonly tokens: ServiceAccountTokenManager,
    private readonly claimReader?: ClaimReader,
  ) {}

  private volumeDir(uid: string, plugin: string, name: string): string {
    return join(podDirectory(this.rootDir, uid), 'volumes', plugin, name);
  }

  /**
   * Sets up (or refreshes) every volume; each by volume name. The claims come first, as the kubelet's
   * populator processes them before any mount: one not bound yet holds the pod back with the
   * kubelet's `Unable to attach or mount volumes` message.
   */
  async setUp(pod: Pod, facts: PodFacts): Promise<Map<string, MountedVolume>> {
    const uid = pod.metadata?.uid ?? '';
    const volumes = pod.spec?.volumes ?? [];
    const claims = await this.resolveClaims(pod, volumes);
    const result = new Map<string, MountedVolume>();
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    const policy = pod.spec?.securityContext?.fsGroupChangePolicy;
    for (const volume of volumes) {
      const claim = claims.get(volume.name);
      const mounted = claim ? await this.claimVolume(claim) : { path: await this.setUpVolume(pod, volume, facts), readOnly: false };
      // As the kubelet's emptyDir and local plugins (hostPath and the projected ones never change owners).
      const ownable = volume.emptyDir !== undefined || claim?.source.kind === 'local';
      const key = `${uid}/${volume.name}`;
      if (fsGroup !== undefined && ownable && !mounted.readOnly && !this.owned.has(key)) {
        try {
          await setVolumeOwnership(mounted.path, fsGroup, false, policy);
        } catch (error) {
          throw new VolumeError(`volume "${volume.name}": setting the ownership to group ${fsGroup}: ${errorMessage(error)}`);
        }
        this.owned.add(key);
      }
      result.set(volume.name, mounted);
    }
    return result;
  }

  /** The pod's claims, each resolved to its bound volume; all that cannot be mounted yet are named at once. */
  private async resolveClaims(pod: Pod, volumes: readonly Volume[]): Promise<Map<string, ClaimVolume>> {
    const uid = pod.metadata?.uid ?? '';
    const known = this.claims.get(uid) ?? new Map<string, ClaimVolume>();
    const failed: string[] = [];
    const reasons: string[] = [];
    for (const volume of volumes) {
      if (claimNameOf(pod, volume) === undefined || known.has(volume.name)) continue;
      if (!this.claimReader) {
        failed.push(volume.name);
        reasons.push(`volume "${volume.name}": this node agent reads no claims`);
        continue;
      }
      try {
        known.set(volume.name, await resolveClaimVolume(pod, volume, this.claimReader));
      } catch (error) {
        if (!(error instanceof ClaimVolumeError)) throw error;
        failed.push(volume.name);
        reasons.push(error.message);
      }
    }
    this.claims.set(uid, known);
    if (failed.length > 0) {
      const list = `[${failed.join(' ')}]`;
      const message = `unmounted volumes=${list}, unattached volumes=[], failed to process volumes=${list}: ${reasons.join('; ')}`;
      throw new VolumeError(message, `Unable to attach or mount volumes: ${message}`);
    }
    return known;
  }

  /** A claim's bound volume: the node's directory itself (a local volume must be there; a hostPath one is checked against its type). */
  private async claimVolume(claim: ClaimVolume): Promise<MountedVolume> {
    if (claim.source.kind === 'hostPath') return { path: await this.hostPath(claim.source.path, claim.source.type), readOnly: claim.readOnly };
    const info = await stat(claim.source.path).catch(() => undefined);
    if (!info) throw new VolumeError(`path "${claim.source.path}" of local volume ${claim.volumeName} does not exist`);
    return { path: claim.source.path, readOnly: claim.readOnly };
  }

  private async setUpVolume(pod: Pod, volume: Volume, facts: PodFacts): Promise<string> {
    const uid = pod.metadata?.uid ?? '';
    if (volume.hostPath) return this.hostPath(volume.hostPath.path, volume.hostPath.type ?? '');
    if (volume.emptyDir) {
      const dir = this.volumeDir(uid, 'empty-dir', volume.name);
      await mkdir(dir, { recursive: true, mode: 0o777 });
      if (volume.emptyDir.medium === 'Memory' && !(await isMountPoint(dir))) {
        const size = quantityValue(volume.emptyDir.sizeLimit);
        await run('mount', ['-t', 'tmpfs', '-o', `mode=0777${size ? `,size=${size}` : ''}`, 'tmpfs', dir]);
      }
      return dir;
    }
    const projected = await this.projection(pod, volume, facts);
    if (projected) {
      const dir = this.volumeDir(uid, projected.plugin, volume.name);
      await writeAtomically(dir, projected.files);
      return dir;
    }
    const source = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
    throw new VolumeError(`volume "${volume.name}": ${source} volumes are not supported by this node agent`);
  }

  private async hostPath(path: string, type: string): Promise<string> {
    const info = await stat(path).catch(() => undefined);
    switch (type) {
      case 'DirectoryOrCreate':
        if (!info) await mkdir(path, { recursive: true, mode: 0o755 });
        else if (!info.isDirectory()) throw new VolumeError(`hostPath type check failed: ${path} is not a directory`);
        break;
      case 'Directory':
        if (!info?.isDirectory()) throw new VolumeError(`hostPath type check failed: ${path} is not a directory`);
        break;
      case 'FileOrCreate':
        if (!info) await writeFile(path, '', { mode: 0o644 });
        else if (!info.isFile()) throw new VolumeError(`hostPath type check failed: ${path} is not a file`);
        break;
      case 'File':
        if (!info?.isFile()) throw new VolumeError(`hostPath type check failed: ${path} is not a file`);
        break;
      case 'Socket':
        if (!info?.isSocket()) throw new VolumeError(`hostPath type check failed: ${path} is not a socket`);
        break;
      case 'CharDevice':
        if (!info?.isCharacterDevice()) throw new VolumeError(`hostPath type check failed: ${path} is not a character device`);
        break;
      case 'BlockDevice':
        if (!info?.isBlockDevice()) throw new VolumeError(`hostPath type check failed: ${path} is not a block device`);
        break;
      default:
        break;
    }
    return path;
  }

  /** The files of a configMap, secret, downwardAPI or projected volume; undefined for other sources. */
  private async projection(pod: Pod, volume: Volume, facts: PodFacts): Promise<{ plugin: string; files: Map<string, FileProjection> } | undefined> {
    const files = new Map<string, FileProjection>();
    if (volume.configMap) {
      const source = volume.configMap;
      await this.addObject(pod, files, 'configmaps', source.name ?? '', source.items, source.defaultMode ?? DEFAULT_MODE, source.optional === true);
      return { plugin: 'configmap', files };
    }
    if (volume.secret) {
      const source = volume.secret;
      await this.addObject(pod, files, 'secrets', source.secretName ?? '', source.items, source.defaultMode ?? DEFAULT_MODE, source.optional === true);
      return { plugin: 'secret', files };
    }
    if (volume.downwardAPI) {
      this.addDownward(pod, files, volume.downwardAPI.items ?? [], volume.downwardAPI.defaultMode ?? DEFAULT_MODE, facts);
      return { plugin: 'downward-api', files };
    }
    if (volume.projected) {
      const mode = volume.projected.defaultMode ?? DEFAULT_MODE;
      for (const source of volume.projected.sources ?? []) {
        if (source.configMap)
          await this.addObject(pod, files, 'configmaps', source.configMap.name ?? '', source.configMap.items, mode, source.configMap.optional === true);
        else if (source.secret)
          await this.addObject(pod, files, 'secrets', source.secret.name ?? '', source.secret.items, mode, source.secret.optional === true);
        else if (source.downwardAPI) this.addDownward(pod, files, source.downwardAPI.items ?? [], mode, facts);
        else if (source.serviceAccountToken) await this.addToken(pod, files, source.serviceAccountToken, mode);
        else throw new VolumeError(`volume "${volume.name}": projected ${Object.keys(source).join(', ')} sources are not supported by this node agent`);
      }
      return { plugin: 'projected', files };
    }
    return undefined;
  }

  private async addObject(
    pod: Pod,
    files: Map<string, FileProjection>,
    kind: ConfigKind,
    name: string,
    items: ReadonlyArray<{ key: string; path: string; mode?: number }> | undefined,
    mode: number,
    optional: boolean,
  ): Promise<void> {
    const object = await this.objects.get(kind, pod.metadata?.namespace ?? 'default', name, pod.metadata?.uid ?? '');
    const what = kind === 'secrets' ? 'secret' : 'configmap';
    if (!object) {
      if (optional) return;
      throw new VolumeError(`${what} "${name}" not found`);
    }
    if (!items || items.length === 0) {
      for (const [key, data] of configEntries(kind, object)) files.set(key, { data, mode });
      return;
    }
    for (const item of items) {
      const data = configValue(kind, object, item.key);
      if (data === undefined) {
        if (optional) continue;
        throw new VolumeError(`configure ${what} "${name}": key "${item.key}" not found`);
      }
      files.set(item.path, { data, mode: item.mode ?? mode });
    }
  }

  private addDownward(
    pod: Pod,
    files: Map<string, FileProjection>,
    items: ReadonlyArray<{
      path: string;
      fieldRef?: { fieldPath: string };
      resourceFieldRef?: { containerName?: string; resource: string; divisor?: string | number };
      mode?: number;
    }>,
    mode: number,
    facts: PodFacts,
  ): void {
    for (const item of items) {
      let value: string;
      try {
        if (item.fieldRef) value = podFieldValue(pod, item.fieldRef.fieldPath, facts);
        else if (item.resourceFieldRef) {
          const ref = item.resourceFieldRef;
          value = resourceFieldValue(pod, ref.containerName ?? '', ref.resource, ref.divisor, facts);
        } else continue;
      } catch (error) {
        if (error instanceof ContainerConfigError) throw new VolumeError(error.message);
        throw error;
      }
      files.set(item.path, { data: Buffer.from(value, 'utf8'), mode: item.mode ?? mode });
    }
  }

  /** A token of the pod's service account from a TokenRequest bound to the pod. */
  private async addToken(
    pod: Pod,
    files: Map<string, FileProjection>,
    source: { audience?: string; expirationSeconds?: number; path: string },
    mode: number,
  ): Promise<void> {
    const meta = pod.metadata ?? {};
    try {
      const token = await this.tokens.token({
        namespace: meta.namespace ?? 'default',
        serviceAccount: pod.spec?.serviceAccountName || 'default',
        audience: source.audience ?? '',
        expirationSeconds: source.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
        podName: meta.name ?? '',
        podUid: meta.uid ?? '',
      });
      files.set(source.path, { data: Buffer.from(token, 'utf8'), mode });
    } catch (error) {
      throw new VolumeError(errorMessage(error));
    }
  }

  /**
   * The pod's volumes whose use the node's stats report, as the kubelet's volume plugins offer
   * metrics: emptyDir (on disk or in memory) and the projected kinds by the walk of their directory;
   * claims through their bound volume, with the claim named; hostPath volumes report nothing.
   */
  statsVolumes(pod: Pod): StatsVolume[] {
    const uid = pod.metadata?.uid ?? '';
    const claims = this.claims.get(uid);
    const result: StatsVolume[] = [];
    for (const volume of pod.spec?.volumes ?? []) {
      const claim = claims?.get(volume.name);
      const claimName = claimNameOf(pod, volume);
      if (claim && claimName !== undefined) {
        if (claim.source.kind === 'local')
          result.push({ name: volume.name, path: claim.source.path, pvcRef: { name: claimName, namespace: pod.metadata?.namespace ?? 'default' } });
        continue;
      }
      const plugin = volume.emptyDir
        ? 'empty-dir'
        : volume.configMap
          ? 'configmap'
          : volume.secret
            ? 'secret'
            : volume.downwardAPI
              ? 'downward-api'
              : volume.projected
                ? 'projected'
                : undefined;
      if (plugin) result.push({ name: volume.name, path: this.volumeDir(uid, plugin, volume.name), ephemeral: true });
    }
    return result;
  }

  /** Removes the pod's directory, unmounting what was mounted in it. */
  async tearDown(uid: string): Promise<void> {
    this.tokens.forgetPod(uid);
    this.claims.delete(uid);
    for (const key of [...this.owned]) if (key.startsWith(`${uid}/`)) this.owned.delete(key);
    const dir = podDirectory(this.rootDir, uid);
    if (!(await exists(dir))) return;
    const below = await mountsBelow(dir);
    for (const point of below) await run('umount', [point]).catch(() => run('umount', ['-l', point]).catch(() => undefined));
    // A mount left below the pod's directory (a subPath's bind mount of a claim) leads into data that
    // outlives the pod: the directory stays rather than be removed through it.
    const left = await mountsBelow(dir);
    if (left.length > 0) throw new Error(`pod ${uid}: ${left.join(', ')} could not be unmounted; the pod's directory stays`);
    await rm(dir, { recursive: true, force: true });
  }
}
