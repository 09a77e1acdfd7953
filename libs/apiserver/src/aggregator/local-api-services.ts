import { AUTOMANAGED_LABEL, compareVersions, type APIService } from '@svc/api';
import { CRD_GROUP_PRIORITY, discoveryGroupPriority } from '../discovery/group-priority';
import type { ServedApis } from '../discovery/served-apis';
import { SERVER_FIELD_MANAGER } from '../registry/core/namespace/bootstrap-namespaces';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { KindMirror } from './kind-mirror';

/** How often the served group versions are compared with the local APIServices (a CRD's new version, say). */
const SYNC_MS = 2_000;

/** Kubernetes' version priorities of its own group versions: GA 15, beta 9, alpha 1; the core group's v1 is 1. */
function versionPriority(group: string, version: string): number {
  if (group === '') return 1;
  if (/^v\d+$/.test(version)) return 15;
  if (/beta/.test(version)) return 9;
  return 1;
}

/**
 * The local APIServices: one per group version this server serves, as kube-aggregator's autoregister
 * and crdRegistration controllers keep them (built-in ones labelled `onstart`, those of
 * CustomResourceDefinitions `true`); an automanaged one whose group version is no longer served goes.
 */
export function desiredLocalAPIServices(apis: ServedApis): APIService[] {
  const out: APIService[] = [];
  for (const group of apis.groups()) {
    const crd = apis.scheme.resourcesIn(group.name, group.versions[0]?.version ?? '').some((d) => d.source.type === 'crd');
    for (const { version } of group.versions) {
      out.push({
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `${version}.${group.name}`, labels: { [AUTOMANAGED_LABEL]: crd ? 'true' : 'onstart' } },
        spec: {
          service: null,
          group: group.name,
          version,
          groupPriorityMinimum: crd ? CRD_GROUP_PRIORITY : discoveryGroupPriority(group.name),
          versionPriority: crd ? 100 : versionPriority(group.name, version),
        },
      });
    }
  }
  return out.sort((a, b) => compareVersions(a.spec?.version ?? '', b.spec?.version ?? ''));
}

function sameLocalSpec(a: APIService, b: APIService): boolean {
  const x = a.spec;
  const y = b.spec;
  return (
    !x?.service &&
    x?.group === y?.group &&
    x?.version === y?.version &&
    x?.groupPriorityMinimum === y?.groupPriorityMinimum &&
    x?.versionPriority === y?.versionPriority
  );
}

/** Keeps the local APIServices as desiredLocalAPIServices says, at start and every few seconds after. */
export class LocalAPIServiceRegistration {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly apis: ServedApis,
    private readonly mirror: KindMirror<APIService>,
    private readonly registry: () => ResourceRegistry<APIService> | undefined,
    private readonly log: (message: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.mirror.whenSynced();
    await this.sync();
    this.timer = setInterval(() => void this.sync(), SYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sync(): Promise<void> {
    const registry = this.registry();
    if (registry === undefined || this.running) return;
    this.running = true;
    try {
      const desired = new Map(desiredLocalAPIServices(this.apis).map((a) => [a.metadata!.name!, a] as const));
      for (const [name, want] of desired) {
        const have = this.mirror.get('', name);
        try {
          if (have === undefined) await registry.create('', { value: want }, { fieldManager: SERVER_FIELD_MANAGER });
          else if (have.metadata?.labels?.[AUTOMANAGED_LABEL] !== undefined && !sameLocalSpec(have, want)) {
            await registry.update('', name, { value: { ...have, spec: want.spec } }, { fieldManager: SERVER_FIELD_MANAGER });
          }
        } catch (error) {
          this.log(`APIService ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      for (const have of this.mirror.list()) {
        const name = have.metadata?.name ?? '';
        if (desired.has(name) || have.metadata?.labels?.[AUTOMANAGED_LABEL] === undefined || have.spec?.service) continue;
        await registry.delete('', name, {}, { fieldManager: SERVER_FIELD_MANAGER }).catch(() => undefined);
      }
    } finally {
      this.running = false;
    }
  }
}
