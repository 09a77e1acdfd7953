import type { FuzzHttp } from './fuzz-http';
import { collectionPath, objectPath, type FuzzModel, type ResourceModel } from './fuzz-model';

/**
 * The objects every refused request is checked against: one live object of each creatable kind
 * (labels, annotations and a finalizer of its own on each), a custom resource definition whose
 * schema keeps unknown fields, and one object of it. Generated requests aim at these names, so a
 * refused request that touches one is caught by comparing its resourceVersion and content.
 */

export const FIXTURE_LABELS = { app: 'fz', fuzz: 'fixture' };
export const FIXTURE_ANNOTATIONS = { 'fuzz.svc.io/note': 'keep' };
export const FIXTURE_FINALIZER = 'fuzz.svc.io/keep';

export const CUSTOM_GROUP = 'fuzz.example.com';
export const CUSTOM_RESOURCE = 'fuzzthings';
export const CUSTOM_KIND = 'FuzzThing';
export const CRD_NAME = `${CUSTOM_RESOURCE}.${CUSTOM_GROUP}`;

/** The fixture CRD: a typed field, a field that keeps unknown content (where deep bodies go), status and scale. */
export const FIXTURE_CRD = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: CUSTOM_GROUP,
    scope: 'Namespaced',
    names: { plural: CUSTOM_RESOURCE, singular: 'fuzzthing', kind: CUSTOM_KIND, listKind: `${CUSTOM_KIND}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  size: { type: 'integer', minimum: 0, maximum: 100 },
                  colour: { type: 'string', enum: ['red', 'green'] },
                  free: { type: 'object', 'x-svc-preserve-unknown-fields': true },
                  items: { type: 'array', items: { type: 'string' }, 'x-svc-list-type': 'set' },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      },
    ],
  },
};

const CONTAINERS = [{ name: 'app', image: 'registry.example/app:1.0' }];

/** The body of each kind's fixture (without metadata), by `apiVersion/Kind`. */
function fixtureSpec(key: string, namespace: string): Record<string, unknown> | undefined {
  switch (key) {
    case 'v1/ConfigMap':
      return { data: { a: '1', b: 'two' } };
    case 'v1/Secret':
      return { type: 'Opaque', data: { token: Buffer.from('s3cret').toString('base64') } };
    case 'v1/Pod':
      return { spec: { containers: CONTAINERS } };
    case 'v1/Service':
      return { spec: { ports: [{ port: 80 }], selector: { app: 'fz' } } };
    case 'v1/Endpoints':
      return { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] };
    case 'v1/Event':
      return { involvedObject: { kind: 'ConfigMap', name: 'fz-configmap', namespace }, reason: 'Fuzz', message: 'fixture', type: 'Normal' };
    case 'v1/ServiceAccount':
      return {};
    case 'v1/Node':
      return { spec: {} };
    case 'apps/v1/Deployment':
    case 'apps/v1/ReplicaSet':
      return {
        spec: { replicas: 2, selector: { matchLabels: { app: 'fz' } }, template: { metadata: { labels: { app: 'fz' } }, spec: { containers: CONTAINERS } } },
      };
    case 'coordination.svc.io/v1/Lease':
      return { spec: { holderIdentity: 'fz', leaseDurationSeconds: 15 } };
    case `${CUSTOM_GROUP}/v1/${CUSTOM_KIND}`:
      return { spec: { replicas: 1, size: 3, colour: 'red', free: { nested: [1, 'two', { three: 3 }] }, items: ['a', 'b'] } };
    default:
      return undefined;
  }
}

export interface Fixture {
  resource: ResourceModel;
  /** Empty for cluster-scoped kinds. */
  namespace: string;
  name: string;
}

/** The fixture name of a resource type: `fz-<singular>` (the namespace fixture is the namespace itself). */
export function fixtureName(resource: ResourceModel): string {
  if (resource.group === '' && resource.resource === 'namespaces') return '{ns}';
  if (resource.resource === 'customresourcedefinitions') return CRD_NAME;
  return `fz-${resource.kind.toLowerCase()}`;
}

/** A valid body for a resource's fixture (or for an object like it under another name), or undefined for kinds with no template. */
export function fixtureBody(resource: ResourceModel, name: string, namespace: string): Record<string, unknown> | undefined {
  const key = `${resource.apiVersion}/${resource.kind}`;
  if (resource.resource === 'customresourcedefinitions') {
    return name === CRD_NAME ? structuredClone(FIXTURE_CRD) : undefined;
  }
  if (resource.group === '' && resource.resource === 'namespaces') {
    return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...FIXTURE_LABELS }, annotations: { ...FIXTURE_ANNOTATIONS } } };
  }
  const spec = fixtureSpec(key, namespace);
  if (spec === undefined) return undefined;
  // No finalizer on custom resources: while their CRD is being deleted they are not served, so a
  // finalizer on one could never be removed and the CRD (and the next fixture CRD) would never go.
  const finalizers = resource.custom ? {} : { finalizers: [FIXTURE_FINALIZER] };
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata: { name, labels: { ...FIXTURE_LABELS }, annotations: { ...FIXTURE_ANNOTATIONS }, ...finalizers },
    ...spec,
  };
}

interface SnapshotEntry {
  resourceVersion: string;
  text: string;
  terminating: boolean;
}

/** Fixture key -> its state (absent when the object does not exist). */
export type Snapshot = Map<string, SnapshotEntry>;

function keyOf(fixture: Fixture, namespace: string): string {
  return `${fixture.resource.apiVersion}/${fixture.resource.kind} ${fixture.resource.namespaced ? `${namespace}/` : ''}${fixture.name.replace('{ns}', namespace)}`;
}

const JSON_HEADERS: Array<[string, string]> = [['Accept', 'application/json']];

/**
 * Creates, reads and restores the fixtures. The fixture namespace is rotated (`fuzz-1`, `fuzz-2`, ...)
 * when a legitimate request deletes it: with no namespace controller running it would stay
 * Terminating and refuse every create.
 */
export class Fixtures {
  namespace = '';
  private generation = 0;
  readonly all: Fixture[];
  /** Fixtures that could not be brought back on this server: left out of the checks, named in the log. */
  readonly lost = new Set<string>();

  constructor(
    private readonly http: () => FuzzHttp,
    model: FuzzModel,
  ) {
    this.all = model.resources
      .filter((r) => r.verbs.includes('create') && fixtureBody(r, fixtureName(r), 'x') !== undefined)
      .map((resource) => ({ resource, namespace: '', name: fixtureName(resource) }));
  }

  /** The store's revision now (a list's resourceVersion is the store's one counter). */
  async revision(): Promise<string> {
    const answer = await this.http().send({ method: 'GET', target: '/api/v1/namespaces?limit=1', headers: JSON_HEADERS }, 30_000);
    if (answer.status !== 200) throw new Error(`reading the store revision: ${answer.status} ${answer.error ?? answer.body.toString('utf8').slice(0, 300)}`);
    return (JSON.parse(answer.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  }

  async snapshot(): Promise<Snapshot> {
    const snapshot: Snapshot = new Map();
    for (const fixture of this.all) {
      const answer = await this.http().send({ method: 'GET', target: this.pathOf(fixture), headers: JSON_HEADERS }, 30_000);
      if (answer.status === 404) continue;
      if (answer.status !== 200)
        throw new Error(`reading fixture ${keyOf(fixture, this.namespace)}: ${answer.status} ${answer.error ?? answer.body.toString('utf8').slice(0, 300)}`);
      const text = answer.body.toString('utf8');
      const object = JSON.parse(text) as { metadata?: { resourceVersion?: string; deletionTimestamp?: string }; status?: { phase?: unknown } };
      snapshot.set(keyOf(fixture, this.namespace), {
        resourceVersion: object.metadata?.resourceVersion ?? '',
        text,
        // A namespace whose status says Terminating refuses creates even without a deletionTimestamp.
        terminating: object.metadata?.deletionTimestamp !== undefined || (object.status?.phase === 'Terminating' && fixture.name === '{ns}'),
      });
    }
    return snapshot;
  }

  /** What differs between two snapshots, one line per fixture. */
  static diff(before: Snapshot, after: Snapshot): string[] {
    const changes: string[] = [];
    for (const [key, entry] of before) {
      const now = after.get(key);
      if (now === undefined) changes.push(`${key} was deleted`);
      else if (now.resourceVersion !== entry.resourceVersion)
        changes.push(`${key} changed (resourceVersion ${entry.resourceVersion} -> ${now.resourceVersion})`);
      else if (now.text !== entry.text) changes.push(`${key} changed content at the same resourceVersion`);
    }
    for (const key of after.keys()) if (!before.has(key)) changes.push(`${key} was created`);
    return changes;
  }

  /** Whether every fixture is there and live. */
  complete(snapshot: Snapshot): boolean {
    return this.all.every((fixture) => {
      if (this.lost.has(keyOf(fixture, ''))) return true;
      const entry = snapshot.get(keyOf(fixture, this.namespace));
      return entry !== undefined && !entry.terminating;
    });
  }

  /**
   * Brings every fixture back: a new namespace when the fixture namespace is gone or terminating,
   * finalizers stripped from terminating fixtures so they go, missing ones created again.
   */
  async restore(snapshot?: Snapshot, log: (line: string) => void = () => undefined): Promise<void> {
    const current: Snapshot = snapshot ?? (this.namespace === '' ? new Map<string, SnapshotEntry>() : await this.snapshot());
    const nsFixture = this.all.find((f) => f.resource.group === '' && f.resource.resource === 'namespaces');
    const nsEntry = nsFixture ? current.get(keyOf(nsFixture, this.namespace)) : undefined;
    if (this.namespace === '' || nsEntry === undefined || nsEntry.terminating) {
      this.generation++;
      this.namespace = `fuzz-${this.generation}`;
    }
    // Cluster-scoped first (the CRD before its objects), the namespace before what lives in it.
    const ordered = [...this.all].sort((a, b) => rank(a) - rank(b));
    for (const fixture of ordered) {
      if (this.lost.has(keyOf(fixture, ''))) continue;
      const entry = current.get(keyOf(fixture, this.namespace));
      if (entry !== undefined && !entry.terminating) continue;
      try {
        // Checked again now: the two names of one CRD are two fixtures of one object, and the first
        // one's restore may have brought it back already.
        if (entry?.terminating && (await this.stillTerminating(fixture))) await this.release(fixture);
        await this.create(fixture);
      } catch (error) {
        // One fixture that cannot come back (a CRD stuck terminating) must not stop the run.
        this.lost.add(keyOf(fixture, ''));
        log(`fixture ${keyOf(fixture, this.namespace)} is lost for the rest of this server's life: ${(error as Error).message}`);
      }
    }
  }

  pathOf(fixture: Fixture): string {
    if (fixture.resource.group === '' && fixture.resource.resource === 'namespaces') return `/api/v1/namespaces/${this.namespace}`;
    return objectPath(fixture.resource, this.namespace, fixture.name);
  }

  private async release(fixture: Fixture): Promise<void> {
    const path = this.pathOf(fixture);
    if (fixture.resource.resource === 'customresourcedefinitions') {
      // The CRD goes once its objects are gone, and objects holding a finalizer never go by themselves.
      const refused: string[] = [];
      const list = await this.http().send({ method: 'GET', target: `/apis/${CUSTOM_GROUP}/v1/${CUSTOM_RESOURCE}`, headers: JSON_HEADERS }, 30_000);
      if (list.status === 200) {
        const items = (JSON.parse(list.body.toString('utf8')) as { items: Array<{ metadata: { name: string; namespace: string } }> }).items;
        for (const item of items) {
          const status = await this.stripFinalizers(`/apis/${CUSTOM_GROUP}/v1/namespaces/${item.metadata.namespace}/${CUSTOM_RESOURCE}/${item.metadata.name}`);
          if (status !== 200 && status !== 404) refused.push(`${item.metadata.namespace}/${item.metadata.name}: ${status}`);
        }
      }
      // Finalizers an input put on the CRD (or a delete with propagationPolicy Orphan or Foreground, which
      // only the garbage collector removes: no controller runs beside the fuzzed server) would keep it
      // for ever. The server's own cleanup finalizer stays: it removes it once the objects are gone.
      await this.stripForeignFinalizers(path);
      try {
        await this.waitFor(path, (status) => status === 404, 20_000);
      } catch (error) {
        throw new Error(
          `${(error as Error).message}; ${await this.whyStillThere(path)}${refused.length ? `; objects whose finalizers could not be removed: ${refused.join(', ')}` : ''}`,
        );
      }
      return;
    }
    await this.stripFinalizers(path);
    await this.waitFor(path, (status) => status === 404, 20_000);
  }

  /** What keeps a terminating CRD: its finalizers and its Terminating condition, for the harness log. */
  private async whyStillThere(path: string): Promise<string> {
    const answer = await this.http().send({ method: 'GET', target: path, headers: JSON_HEADERS }, 30_000);
    if (answer.status !== 200) return `it now answers ${answer.status}`;
    const crd = JSON.parse(answer.body.toString('utf8')) as {
      metadata?: { finalizers?: string[]; deletionTimestamp?: string };
      status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
    };
    const terminating = crd.status?.conditions?.find((c) => c.type === 'Terminating');
    return (
      `finalizers ${JSON.stringify(crd.metadata?.finalizers ?? [])}, deletionTimestamp ${crd.metadata?.deletionTimestamp ?? 'unset'}, ` +
      `Terminating ${terminating ? `${terminating.status} ${terminating.reason ?? ''}: ${terminating.message ?? ''}` : 'absent'}`
    );
  }

  private async stillTerminating(fixture: Fixture): Promise<boolean> {
    const answer = await this.http().send({ method: 'GET', target: this.pathOf(fixture), headers: JSON_HEADERS }, 30_000);
    if (answer.status !== 200) return true;
    return (JSON.parse(answer.body.toString('utf8')) as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp !== undefined;
  }

  private async stripForeignFinalizers(path: string): Promise<void> {
    const answer = await this.http().send({ method: 'GET', target: path, headers: JSON_HEADERS }, 30_000);
    if (answer.status !== 200) return;
    const finalizers = (JSON.parse(answer.body.toString('utf8')) as { metadata?: { finalizers?: string[] } }).metadata?.finalizers ?? [];
    const kept = finalizers.filter((f) => f.startsWith('customresourcecleanup.'));
    if (kept.length === finalizers.length) return;
    await this.http().send(
      {
        method: 'PATCH',
        target: path,
        headers: [['Content-Type', 'application/merge-patch+json']],
        body: Buffer.from(JSON.stringify({ metadata: { finalizers: kept } })),
      },
      30_000,
    );
  }

  /** Removes every finalizer of an object; the answer's status. */
  private async stripFinalizers(path: string): Promise<number> {
    const answer = await this.http().send(
      { method: 'PATCH', target: path, headers: [['Content-Type', 'application/merge-patch+json']], body: Buffer.from('{"metadata":{"finalizers":null}}') },
      30_000,
    );
    return answer.status;
  }

  private async create(fixture: Fixture): Promise<void> {
    const name = fixture.name === '{ns}' ? this.namespace : fixture.name;
    const body = fixtureBody(fixture.resource, name, this.namespace);
    if (body === undefined) return;
    const collection = collectionPath(fixture.resource, this.namespace);
    const answer = await this.http().send(
      {
        method: 'POST',
        target: collection,
        headers: [
          ['Content-Type', 'application/json'],
          ['Accept', 'application/json'],
        ],
        body: Buffer.from(JSON.stringify(body)),
      },
      30_000,
    );
    if (answer.status !== 201 && answer.status !== 409) {
      throw new Error(`creating fixture ${keyOf(fixture, this.namespace)}: ${answer.status} ${answer.error ?? answer.body.toString('utf8').slice(0, 500)}`);
    }
    if (fixture.resource.resource === 'customresourcedefinitions') {
      // Its objects are served once it is established.
      await this.waitFor(`/apis/${CUSTOM_GROUP}/v1/${CUSTOM_RESOURCE}`, (status) => status === 200, 20_000);
    }
  }

  private async waitFor(path: string, done: (status: number) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.http().send({ method: 'GET', target: path, headers: JSON_HEADERS }, 30_000);
      if (done(answer.status)) return;
      if (Date.now() > deadline) throw new Error(`${path} did not reach the expected state in ${timeoutMs} ms (last answer ${answer.status})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function rank(fixture: Fixture): number {
  if (fixture.resource.resource === 'customresourcedefinitions') return 0;
  if (fixture.resource.group === '' && fixture.resource.resource === 'namespaces') return 1;
  if (!fixture.resource.namespaced) return 2;
  return fixture.resource.custom ? 4 : 3;
}
