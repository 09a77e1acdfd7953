import { kubernetesGroupName, specGroupName, type GroupVersionForDiscovery } from '@svc/machinery';
import { apiVersionOf, type DeprecationInfo, type GroupVersionKind, type GroupVersionResource, type KindDefinition } from './kind-definition';
import { findDeprecatedApiVersion, findRemovedApiVersion, type RemovedApiVersion } from './removed-versions';
import { compareVersions } from './versions';

export type { GroupVersionForDiscovery };

export interface ApiGroupInfo {
  /** `""` for the core group. */
  name: string;
  /** Most preferred first. */
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface RegisterOptions {
  /** Replace a definition of the same group, version and kind (a CRD was updated). */
  replace?: boolean;
}

const gvkKey = (g: string, v: string, k: string) => `${g}\u0000${v}\u0000${k}`;
const gvrKey = (g: string, v: string, r: string) => `${g}\u0000${v}\u0000${r}`;

function byPreference(a: KindDefinition, b: KindDefinition): number {
  return a.group === b.group ? compareVersions(a.version, b.version) : a.group < b.group ? -1 : 1;
}

/**
 * The registry of kinds: maps between kinds, resources and short names, and answers the
 * discovery and versioning questions of the API server. Built-in kinds and CRD versions
 * are registered alike.
 *
 * Every group registered under a `*.svc.io` name is also answered for under its `*.k8s.io` name
 * (unless a kind is registered in that group itself): lookups by group return a twin definition
 * whose `aliasOf` is the registered one. `all()` and the kind, short-name and category lookups
 * return registered definitions only; `groups()` lists the twin groups after all the others, so
 * that clients which rank groups by discovery order prefer the specification's names.
 */
export class Scheme {
  private readonly kinds = new Map<string, KindDefinition>();
  private readonly resources = new Map<string, KindDefinition>();
  /** Twins made so far, one per registered definition object (a replaced definition gets a new one). */
  private readonly twins = new WeakMap<KindDefinition, KindDefinition>();
  /** Groups with at least one registered kind, with how many. */
  private readonly groupCounts = new Map<string, number>();

  register(def: KindDefinition, options: RegisterOptions = {}): void {
    if (def.aliasOf !== undefined)
      throw new Error(`kind ${def.kind} of ${apiVersionOf(def)} is a twin made by the scheme; register ${apiVersionOf(def.aliasOf)}`);
    const kKey = gvkKey(def.group, def.version, def.kind);
    const rKey = gvrKey(def.group, def.version, def.resource);
    const existing = this.kinds.get(kKey);
    if (existing && !options.replace) throw new Error(`kind ${def.kind} is already registered in ${apiVersionOf(def)}`);
    const holder = this.resources.get(rKey);
    if (holder && holder.kind !== def.kind) {
      throw new Error(`resource ${def.resource} in ${apiVersionOf(def)} is already served by kind ${holder.kind}`);
    }
    if (existing) this.resources.delete(gvrKey(existing.group, existing.version, existing.resource));
    else this.groupCounts.set(def.group, (this.groupCounts.get(def.group) ?? 0) + 1);
    this.kinds.set(kKey, def);
    this.resources.set(rKey, def);
  }

  unregister(gvk: GroupVersionKind): boolean {
    const def = this.kinds.get(gvkKey(gvk.group, gvk.version, gvk.kind));
    if (!def) return false;
    this.kinds.delete(gvkKey(def.group, def.version, def.kind));
    this.resources.delete(gvrKey(def.group, def.version, def.resource));
    const left = (this.groupCounts.get(def.group) ?? 1) - 1;
    if (left > 0) this.groupCounts.set(def.group, left);
    else this.groupCounts.delete(def.group);
    return true;
  }

  /**
   * The registered group a group name stands for: itself when kinds are registered in it, else the
   * `*.svc.io` group of a `*.k8s.io` name; undefined when neither is registered.
   */
  registeredGroup(group: string): string | undefined {
    if (this.groupCounts.has(group)) return group;
    const spec = specGroupName(group);
    return spec !== group && this.groupCounts.has(spec) ? spec : undefined;
  }

  /** Whether `group` is served as the `*.k8s.io` twin of a registered `*.svc.io` group. */
  isTwinGroup(group: string): boolean {
    const registered = this.registeredGroup(group);
    return registered !== undefined && registered !== group;
  }

  /** The twin of a registered definition under its group's Kubernetes name (made once per definition). */
  private twinOf(def: KindDefinition): KindDefinition {
    let twin = this.twins.get(def);
    if (twin === undefined) {
      // Short names and categories go with the Kubernetes name, the preferred one that kubectl's mapper
      // picks (`kubectl get crd` names apiextensions.k8s.io); discovery leaves them off the spec's name,
      // since kubectl warns of a short name two groups share and would list a category's objects twice.
      twin = { ...def, group: kubernetesGroupName(def.group) ?? def.group, aliasOf: def };
      this.twins.set(def, twin);
    }
    return twin;
  }

  /** `def` as served under `group`: itself, or its twin when `group` is the twin name of its group. */
  private asServedIn(group: string, def: KindDefinition | undefined): KindDefinition | undefined {
    return def === undefined || def.group === group ? def : this.twinOf(def);
  }

  /** Removes every version registered from the named CustomResourceDefinition. */
  unregisterCrd(crdName: string): KindDefinition[] {
    const removed = this.all().filter((d) => d.source.type === 'crd' && d.source.name === crdName);
    removed.forEach((d) => this.unregister(d));
    return removed;
  }

  all(): KindDefinition[] {
    return [...this.kinds.values()].sort(byPreference);
  }

  byGvk(gvk: GroupVersionKind): KindDefinition | undefined {
    const group = this.registeredGroup(gvk.group);
    return group === undefined ? undefined : this.asServedIn(gvk.group, this.kinds.get(gvkKey(group, gvk.version, gvk.kind)));
  }

  /** By `apiVersion` and `kind` as they appear in an object. */
  byApiVersionKind(apiVersion: string, kind: string): KindDefinition | undefined {
    const slash = apiVersion.indexOf('/');
    const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    return this.byGvk({ group, version, kind });
  }

  byResource(gvr: GroupVersionResource): KindDefinition | undefined {
    const group = this.registeredGroup(gvr.group);
    return group === undefined ? undefined : this.asServedIn(gvr.group, this.resources.get(gvrKey(group, gvr.version, gvr.resource)));
  }

  /** Every version of `kind` (optionally in one group, by either of its names), most preferred first. */
  byKind(kind: string, group?: string): KindDefinition[] {
    if (group === undefined) return this.all().filter((d) => d.kind === kind);
    const registered = this.registeredGroup(group);
    return this.all()
      .filter((d) => d.kind === kind && d.group === registered)
      .map((d) => this.asServedIn(group, d)!);
  }

  /** Every kind with `shortName`, most preferred version first. */
  byShortName(shortName: string): KindDefinition[] {
    const name = shortName.toLowerCase();
    return this.all().filter((d) => d.shortNames.includes(name));
  }

  /** The kinds in a category such as `all`, preferred version of each only. */
  byCategory(category: string): KindDefinition[] {
    return this.preferredOnly(this.all().filter((d) => d.categories.includes(category)));
  }

  /**
   * What a command-line name means, the way kubectl resolves it: a plural, singular, short
   * name or kind (case-insensitive), optionally qualified as `<name>.<group>` or
   * `<name>.<version>.<group>`. Preferred versions only unless a version is named.
   */
  resolve(name: string): KindDefinition[] {
    const lower = name.toLowerCase();
    const matchesName = (d: KindDefinition, n: string) => d.resource === n || d.singular === n || d.kind.toLowerCase() === n || d.shortNames.includes(n);
    const direct = this.all().filter((d) => matchesName(d, lower));
    if (direct.length) return this.preferredOnly(direct);
    const dot = lower.indexOf('.');
    if (dot < 0) return [];
    const head = lower.slice(0, dot);
    const rest = lower.slice(dot + 1);
    const qualified = this.all().filter((d) => matchesName(d, head) && (d.group === rest || `${d.version}.${d.group}` === rest));
    return qualified.some((d) => `${d.version}.${d.group}` === rest)
      ? qualified.filter((d) => `${d.version}.${d.group}` === rest)
      : this.preferredOnly(qualified);
  }

  /** Served kinds of one group version (twins for a twin group name). */
  resourcesIn(group: string, version: string): KindDefinition[] {
    const registered = this.registeredGroup(group);
    if (registered === undefined) return [];
    return this.all()
      .filter((d) => d.group === registered && d.version === version && d.served)
      .map((d) => this.asServedIn(group, d)!);
  }

  /**
   * Groups with their served versions: the core group (`""`) first, then the registered groups, then
   * the `*.k8s.io` twins of the `*.svc.io` ones (clients that rank groups by this order, as kubectl
   * does, resolve a resource served under both names to the specification's).
   */
  groups(): ApiGroupInfo[] {
    const versions = new Map<string, Set<string>>();
    for (const d of this.kinds.values()) {
      if (!d.served) continue;
      if (!versions.has(d.group)) versions.set(d.group, new Set());
      versions.get(d.group)!.add(d.version);
    }
    const registered = [...versions.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0));
    const twins: Array<[string, Set<string>]> = [];
    for (const [name, set] of registered) {
      const twin = kubernetesGroupName(name);
      if (twin !== undefined && !versions.has(twin)) twins.push([twin, set]);
    }
    return [...registered, ...twins].map(([name, set]) => {
      const list = [...set].sort(compareVersions).map((version) => ({ groupVersion: name ? `${name}/${version}` : version, version }));
      return { name, versions: list, preferredVersion: list[0] };
    });
  }

  preferredVersion(group: string): string | undefined {
    return this.groups().find((g) => g.name === group)?.preferredVersion.version;
  }

  /** Whether a group version is served by any kind. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.resourcesIn(group, version).length > 0;
  }

  /**
   * The removed-versions entry for a path this scheme does not serve, so that the server can
   * answer 404 with guidance rather than a bare "not found".
   */
  removedVersion(group: string, version: string, resource?: string): RemovedApiVersion | undefined {
    if (resource !== undefined && this.byResource({ group, version, resource })) return undefined;
    if (resource === undefined && this.servesGroupVersion(group, version)) return undefined;
    return findRemovedApiVersion(group, version, resource);
  }

  /** Deprecation of a served kind: a CRD version's own flag, else the removal table's schedule. */
  deprecation(def: KindDefinition): DeprecationInfo | undefined {
    if (def.deprecation) return def.deprecation;
    const scheduled = findDeprecatedApiVersion(def.group, def.version, def.resource);
    return scheduled ? { deprecated: true, removedRelease: scheduled.removedIn } : undefined;
  }

  private preferredOnly(defs: KindDefinition[]): KindDefinition[] {
    const best = new Map<string, KindDefinition>();
    for (const d of defs) {
      const key = `${d.group}\u0000${d.kind}`;
      const current = best.get(key);
      if (!current || compareVersions(d.version, current.version) < 0) best.set(key, d);
    }
    return [...best.values()];
  }
}
