import { kubernetesGroupName, specGroupName } from '@svc/machinery';
import { compareVersions, versionTrack, type ApiGroupInfo, type KindDefinition, type NonStoredResource, type Scheme } from '@svc/api';
import { compareGroupsForDiscovery } from './group-priority';

/** `--runtime-config` as parsed: `key[=value]` pairs, a missing value already read as `true`. */
export type RuntimeConfig = Readonly<Record<string, string>>;

function flag(config: RuntimeConfig, key: string): boolean | undefined {
  const value = config[key];
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`invalid value ${JSON.stringify(value)} for --runtime-config key ${key}: must be true or false`);
}

/**
 * Whether `--runtime-config` leaves a built-in group version on, the way Kubernetes reads it: a
 * `<group>/<version>` key (`v1` or `api/v1` for the core group) wins over a track key (`api/ga`,
 * `api/beta`, `api/alpha`), which wins over `api/all`. Unmentioned versions stay on.
 */
export function groupVersionEnabled(config: RuntimeConfig, group: string, version: string): boolean {
  // A group served under two names (`coordination.svc.io`, `coordination.k8s.io`) is one group: either key counts.
  const twin = kubernetesGroupName(specGroupName(group));
  const specific = group
    ? (flag(config, `${specGroupName(group)}/${version}`) ?? (twin === undefined ? undefined : flag(config, `${twin}/${version}`)))
    : (flag(config, `api/${version}`) ?? flag(config, version) ?? (version === 'v1' ? flag(config, 'api/legacy') : undefined));
  if (specific !== undefined) return specific;
  const track = versionTrack(version);
  const byTrack = track ? flag(config, `api/${track.toLowerCase()}`) : undefined;
  if (byTrack !== undefined) return byTrack;
  return flag(config, 'api/all') ?? true;
}

/**
 * The APIs this server serves: the scheme's served kinds less the built-in group versions
 * `--runtime-config` turns off. Kinds from CustomResourceDefinitions are not subject to it,
 * as in Kubernetes. Discovery and OpenAPI both read through it, so they always agree.
 */
export class ServedApis {
  constructor(
    readonly scheme: Scheme,
    private readonly runtimeConfig: RuntimeConfig = {},
    /** Resources answered by handlers of their own without storage (reviews, component statuses). */
    readonly nonStoredResources: readonly NonStoredResource[] = [],
  ) {
    // Fail at start-up on a malformed value rather than on the first request.
    for (const key of Object.keys(runtimeConfig)) flag(runtimeConfig, key);
  }

  isEnabled(def: KindDefinition): boolean {
    return def.served && (def.source.type === 'crd' || groupVersionEnabled(this.runtimeConfig, def.group, def.version));
  }

  /** Served kinds of a group version that discovery and OpenAPI list (a terminating CRD's are not), in the scheme's order. */
  kinds(group: string, version: string): KindDefinition[] {
    return this.scheme.resourcesIn(group, version).filter((d) => this.isEnabled(d) && d.terminating !== true);
  }

  /** The non-stored resources of a group version that `--runtime-config` leaves on, by resource name. */
  nonStored(group: string, version: string): NonStoredResource[] {
    return this.nonStoredResources
      .filter((r) => r.group === group && r.version === version && groupVersionEnabled(this.runtimeConfig, group, version))
      .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.kinds(group, version).length > 0 || this.nonStored(group, version).length > 0;
  }

  /**
   * Groups with their served versions (most preferred first), in Kubernetes' discovery order: the
   * core group, Kubernetes' groups by their priority, the `*.svc.io` names of the same groups, then
   * the groups of CustomResourceDefinitions by name.
   */
  groups(): ApiGroupInfo[] {
    const out: ApiGroupInfo[] = [];
    const all = this.scheme.groups();
    for (const r of this.nonStoredResources) {
      const g = all.find((x) => x.name === r.group);
      const gv = { groupVersion: r.group ? `${r.group}/${r.version}` : r.version, version: r.version };
      if (!g) all.push({ name: r.group, versions: [gv], preferredVersion: gv });
      else if (!g.versions.some((v) => v.version === r.version)) g.versions.push(gv);
    }
    for (const g of all) {
      const versions = g.versions.filter((v) => this.servesGroupVersion(g.name, v.version)).sort((a, b) => compareVersions(a.version, b.version));
      if (versions.length) out.push({ name: g.name, versions, preferredVersion: versions[0] });
    }
    return out.sort((a, b) => compareGroupsForDiscovery(a.name, b.name));
  }

  group(name: string): ApiGroupInfo | undefined {
    return this.groups().find((g) => g.name === name);
  }
}

/**
 * Takes the built-in kinds `--runtime-config` turns off out of the scheme, so that every part of the
 * server (resource handlers, discovery, OpenAPI) agrees they are not served. Returns what was removed.
 */
export function applyRuntimeConfig(scheme: Scheme, runtimeConfig: RuntimeConfig): KindDefinition[] {
  const apis = new ServedApis(scheme, runtimeConfig);
  const disabled = scheme.all().filter((d) => d.source.type === 'builtin' && d.served && !apis.isEnabled(d));
  for (const def of disabled) scheme.unregister(def);
  return disabled;
}
