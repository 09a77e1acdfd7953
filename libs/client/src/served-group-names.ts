import { builtinScheme } from '@svc/api';
import { groupOfApiVersion, kubernetesGroupName, StatusError, versionOfApiVersion } from '@svc/machinery';

/**
 * Which names a server gives the built-in groups the specification calls `*.svc.io`
 * (`coordination.svc.io`, `apiextensions.svc.io`, `admissionregistration.svc.io`, ...): this
 * project's API server serves both names, a Kubernetes cluster only `*.k8s.io`. The client addresses
 * the specification's names until a request in such a group meets a 404 that names no object
 * (Kubernetes' "the server could not find the requested resource", a path it does not serve); then
 * it reads `/apis` once, and when the server lists the Kubernetes name and not the specification's,
 * every later request goes to the Kubernetes names, with the objects it sends renamed to match
 * (their `apiVersion`). A server that serves the specification's names costs nothing: it never
 * answers such a 404.
 */
export class ServedGroupNames {
  private names: 'unknown' | 'spec' | 'kubernetes' = 'unknown';
  private learning: Promise<void> | undefined;

  constructor(private readonly readGroups: () => Promise<string[]>) {}

  /** Whether requests go to Kubernetes' names. */
  get kubernetes(): boolean {
    return this.names === 'kubernetes';
  }

  /** The group as requests address it now. */
  wireGroup(group: string): string {
    return this.names === 'kubernetes' && builtinSpecGroups().has(group) ? kubernetesGroupName(group)! : group;
  }

  /** An object's `apiVersion` as requests send it now (only a built-in group's changes). */
  wireApiVersion(apiVersion: string): string {
    const group = groupOfApiVersion(apiVersion);
    const wire = this.wireGroup(group);
    return wire === group ? apiVersion : `${wire}/${versionOfApiVersion(apiVersion)}`;
  }

  /**
   * After `error` answered a request in `group`: true when it showed that this server serves that
   * group only under its Kubernetes name, and requests now go there (the caller sends again).
   */
  async switchedBy(group: string, error: unknown): Promise<boolean> {
    if (this.names !== 'unknown' || !builtinSpecGroups().has(group) || !unservedPath(error)) return false;
    this.learning ??= this.readGroups().then(
      (served) => {
        const listed = new Set(served);
        this.names = listed.has(kubernetesGroupName(group)!) && !listed.has(group) ? 'kubernetes' : 'spec';
      },
      // Discovery unreadable: keep the specification's names rather than ask at every 404.
      () => void (this.names = 'spec'),
    );
    await this.learning;
    // Read through the getter: the learning above changed the field since the check at the top.
    return this.kubernetes;
  }
}

/**
 * A group as any Kubernetes cluster names it: a built-in group the specification calls `*.svc.io`
 * under its `*.k8s.io` name, any other group (`apps`, a custom resource's) as it is. For what is
 * written for other clusters: RBAC rules, webhook rules, manifests.
 */
export function kubernetesGroupOf(group: string): string {
  return builtinSpecGroups().has(group) ? kubernetesGroupName(group)! : group;
}

let specGroups: ReadonlySet<string> | undefined;

/** The built-in groups named `*.svc.io` that have a Kubernetes twin (not a custom resource's group). */
function builtinSpecGroups(): ReadonlySet<string> {
  return (specGroups ??= new Set(
    builtinScheme()
      .all()
      .filter((d) => d.source.type !== 'crd')
      .map((d) => d.group)
      .filter((g) => kubernetesGroupName(g) !== undefined),
  ));
}

/** A 404 that names no object: the path itself is not served. */
function unservedPath(error: unknown): boolean {
  return error instanceof StatusError && error.status.code === 404 && !error.status.details?.name;
}
