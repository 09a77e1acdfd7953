import type { ApiObject } from '@svc/api';
import { isStatusError, type Status } from '@svc/machinery';
import type { ResourceWatch, ResourceWatchEvent } from './types';
import { registryFixture, type RegistryFixture } from './testing/registry-fixture';

async function statusOf(promise: Promise<unknown>): Promise<Status> {
  try {
    await promise;
  } catch (error) {
    if (isStatusError(error)) return error.status;
    throw error;
  }
  throw new Error('expected a Status error');
}

/** Collects `count` events, or fails after a second. */
async function next(watch: ResourceWatch, count: number): Promise<ResourceWatchEvent[]> {
  const events: ResourceWatchEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  const deadline = Date.now() + 2_000;
  while (events.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (result === 'timeout') throw new Error(`only ${events.length} of ${count} events arrived: ${JSON.stringify(events)}`);
    if (result.done) break;
    events.push(result.value);
  }
  return events;
}

const configMap = (name: string, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { key: 'value' },
  ...extra,
});

const deployment = (name: string, replicas = 1): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } },
  },
});

describe('ResourceRegistry over the embedded store', () => {
  let fx: RegistryFixture;

  beforeEach(async () => {
    fx = registryFixture();
    await fx.namespace('team');
  });

  afterEach(async () => {
    await fx.close();
  });

  describe('create', () => {
    it('sets uid, creationTimestamp, resourceVersion and the namespace from the path', async () => {
      const { object, created } = await fx.registry('configmaps').create('team', { value: configMap('a') });
      expect(created).toBe(true);
      expect(object.metadata).toMatchObject({ name: 'a', namespace: 'team', resourceVersion: expect.stringMatching(/^\d+$/) });
      expect(object.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(object.metadata?.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const read = await fx.registry('configmaps').get('team', 'a');
      expect(read).toEqual(object);
    });

    it('refuses a body namespace that differs from the path (400) and a missing namespace (404)', async () => {
      const cms = fx.registry('configmaps');
      expect(await statusOf(cms.create('team', { value: configMap('a', { metadata: { name: 'a', namespace: 'other' } }) }))).toMatchObject({
        code: 400,
        message: 'the namespace of the provided object does not match the namespace sent on the request',
      });
      expect(await statusOf(cms.create('nowhere', { value: configMap('a') }))).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
    });

    it('requires a name or generateName (422) and generates names with a 5-character suffix', async () => {
      const cms = fx.registry('configmaps');
      const invalid = await statusOf(cms.create('team', { value: { data: {} } }));
      expect(invalid).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(invalid.details?.causes).toContainEqual({
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
        field: 'metadata.name',
      });
      const { object } = await cms.create('team', { value: { metadata: { generateName: 'web-' } } });
      expect(object.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('answers 409 AlreadyExists for a taken name', async () => {
      const cms = fx.registry('configmaps');
      await cms.create('team', { value: configMap('a') });
      expect(await statusOf(cms.create('team', { value: configMap('a') }))).toMatchObject({
        code: 409,
        reason: 'AlreadyExists',
        message: 'configmaps "a" already exists',
      });
    });

    it('stores nothing on a dry run, which still answers 409 for a taken name', async () => {
      const cms = fx.registry('configmaps');
      const { object } = await cms.create('team', { value: configMap('a') }, { dryRun: true });
      expect(object.metadata?.name).toBe('a');
      expect(await statusOf(cms.get('team', 'a'))).toMatchObject({ code: 404, message: 'configmaps "a" not found' });
      await cms.create('team', { value: configMap('a') });
      expect(await statusOf(cms.create('team', { value: configMap('a') }, { dryRun: true }))).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    });

    it('warns about, refuses or ignores unknown and duplicate fields, and never stores them', async () => {
      const cms = fx.registry('configmaps');
      const input = { value: configMap('a', { spec: { foo: 1 } }), duplicateFields: ['data'] };
      const warned = await cms.create('team', structuredClone(input));
      expect(warned.warnings).toEqual(['unknown field "spec"', 'duplicate field "data"']);
      expect(warned.object.spec).toBeUndefined();
      expect(
        await statusOf(cms.create('team', { ...structuredClone(input), value: configMap('b', { spec: { foo: 1 } }) }, { fieldValidation: 'Strict' })),
      ).toMatchObject({
        code: 400,
        message: 'strict decoding error: unknown field "spec", duplicate field "data"',
      });
      const ignored = await cms.create('team', { ...structuredClone(input), value: configMap('c', { spec: {} }) }, { fieldValidation: 'Ignore' });
      expect(ignored.warnings).toEqual([]);
    });

    it('answers 400 for a wrong field type of a built-in kind and 422 for a schema violation', async () => {
      const deployments = fx.registry('deployments', 'apps');
      const wrongType = deployment('d');
      (wrongType.spec as Record<string, unknown>).replicas = 'three';
      expect(await statusOf(deployments.create('team', { value: wrongType }))).toMatchObject({ code: 400, reason: 'BadRequest' });
      const noSelector = deployment('d');
      delete (noSelector.spec as Record<string, unknown>).selector;
      expect(await statusOf(deployments.create('team', { value: noSelector }))).toMatchObject({ code: 422, reason: 'Invalid' });
    });

    it('fills defaults from the schema and keeps status out of a create', async () => {
      const created = await fx.registry('deployments', 'apps').create('team', { value: { ...deployment('d'), status: { replicas: 4 } } });
      expect(created.object.metadata?.generation).toBe(1);
      expect(created.object.spec).toMatchObject({ strategy: { type: 'RollingUpdate' } });
      expect(created.object.status).toEqual({});
    });
  });

  describe('update', () => {
    it('refuses a stale resourceVersion with 409 Conflict', async () => {
      const cms = fx.registry('configmaps');
      const { object } = await cms.create('team', { value: configMap('a') });
      await cms.update('team', 'a', { value: { ...object, data: { key: 'two' } } });
      expect(await statusOf(cms.update('team', 'a', { value: { ...object, data: { key: 'three' } } }))).toMatchObject({
        code: 409,
        reason: 'Conflict',
        message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      });
    });

    it('refuses a body name that differs from the path, and a missing object unless the kind creates on update', async () => {
      const cms = fx.registry('configmaps');
      expect(await statusOf(cms.update('team', 'a', { value: configMap('b') }))).toMatchObject({ code: 400 });
      expect(await statusOf(cms.update('team', 'a', { value: configMap('a') }))).toMatchObject({ code: 404 });
      const lease = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me' } };
      const created = await fx.registry('leases', 'coordination.svc.io').update('team', 'l', { value: lease });
      expect(created.created).toBe(true);
    });

    it('bumps generation on spec changes only and keeps the stored status on main-resource writes', async () => {
      const deployments = fx.registry('deployments', 'apps');
      await deployments.create('team', { value: deployment('d') });
      const withStatus = await deployments.update('team', 'd', { value: { ...(await deployments.get('team', 'd')), status: { replicas: 1 } } }, {}, 'status');
      expect(withStatus.object.status).toEqual({ replicas: 1 });
      expect(withStatus.object.metadata?.generation).toBe(1);
      const current = await deployments.get('team', 'd');
      const labelled = await deployments.update('team', 'd', {
        value: { ...current, metadata: { ...current.metadata, labels: { x: 'y' } }, status: { replicas: 9 } },
      });
      expect(labelled.object.metadata?.generation).toBe(1);
      expect(labelled.object.status).toEqual({ replicas: 1 });
      const scaled = await deployments.update('team', 'd', { value: { ...labelled.object, spec: { ...(labelled.object.spec as object), replicas: 3 } } });
      expect(scaled.object.metadata?.generation).toBe(2);
    });

    it('writes only status through the status subresource', async () => {
      const deployments = fx.registry('deployments', 'apps');
      const { object } = await deployments.create('team', { value: deployment('d') });
      const next = await deployments.update(
        'team',
        'd',
        { value: { ...object, metadata: { ...object.metadata, labels: { a: 'b' } }, spec: { replicas: 7 }, status: { replicas: 2 } } },
        {},
        'status',
      );
      expect(next.object.metadata?.labels).toBeUndefined();
      expect((next.object.spec as { replicas: number }).replicas).toBe(1);
      expect(next.object.status).toEqual({ replicas: 2 });
    });

    // Kubernetes' deploymentStatusStrategy resets spec and labels, not annotations (the controller
    // writes its revision there): an apply and an update of the status take the same fields, and
    // managedFields record the annotation for the status writer.
    it("takes a Deployment's annotations but not its labels through status, by apply as by update", async () => {
      const deployments = fx.registry('deployments', 'apps');
      await deployments.create('team', { value: deployment('d') });
      const applied = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', labels: { from: 'status' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
        status: { replicas: 1 },
      };
      const result = await deployments.patch(
        'team',
        'd',
        'application/apply-patch+yaml',
        Buffer.from(JSON.stringify(applied)),
        { fieldManager: 'controller' },
        'status',
      );
      expect(result.object.metadata?.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
      expect(result.object.metadata?.labels).toBeUndefined();
      const entry = result.object.metadata?.managedFields?.find((m) => m.manager === 'controller');
      expect(entry).toMatchObject({ operation: 'Apply', subresource: 'status' });
      expect(entry?.fieldsV1).toMatchObject({ 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } } });
      expect(entry?.fieldsV1).not.toHaveProperty(['f:metadata', 'f:labels']);

      const current = await deployments.get('team', 'd');
      const updated = await deployments.update(
        'team',
        'd',
        { value: { ...current, metadata: { ...current.metadata, annotations: { 'deployment.kubernetes.io/revision': '2' } } } },
        { fieldManager: 'updater' },
        'status',
      );
      expect(updated.object.metadata?.annotations).toEqual({ 'deployment.kubernetes.io/revision': '2' });
      const updater = updated.object.metadata?.managedFields?.find((m) => m.manager === 'updater');
      expect(updater).toMatchObject({ operation: 'Update', subresource: 'status' });
      expect(updater?.fieldsV1).toMatchObject({ 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } } });
    });

    it('takes neither labels nor annotations of a ValidatingAdmissionPolicy through status, as Kubernetes resets its metadata', async () => {
      const policies = fx.registry('validatingadmissionpolicies', 'admissionregistration.k8s.io');
      const { object } = await policies.create('', {
        value: {
          metadata: { name: 'p' },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
            validations: [{ expression: 'true' }],
          },
        },
      });
      const written = await policies.update(
        '',
        'p',
        { value: { ...object, metadata: { ...object.metadata, labels: { a: 'b' }, annotations: { c: 'd' } }, status: { observedGeneration: 1 } } },
        {},
        'status',
      );
      expect(written.object.metadata?.labels).toBeUndefined();
      expect(written.object.metadata?.annotations).toBeUndefined();
      expect(written.object.status).toEqual({ observedGeneration: 1 });
    });

    it('refuses to change an apps/v1 selector (422) and writes nothing for an unchanged object', async () => {
      const deployments = fx.registry('deployments', 'apps');
      const { object } = await deployments.create('team', { value: deployment('d') });
      const changed = structuredClone(object) as ApiObject & { spec: { selector: unknown; template: { metadata: { labels: unknown } } } };
      changed.spec.selector = { matchLabels: { app: 'other' } };
      changed.spec.template.metadata.labels = { app: 'other' };
      expect(await statusOf(deployments.update('team', 'd', { value: changed }))).toMatchObject({
        code: 422,
        message: expect.stringContaining('spec.selector'),
      });
      const same = await deployments.update('team', 'd', { value: structuredClone(object) });
      expect(same.object.metadata?.resourceVersion).toBe(object.metadata?.resourceVersion);
    });
  });

  describe('patch', () => {
    it('applies merge, JSON and strategic merge patches', async () => {
      const deployments = fx.registry('deployments', 'apps');
      await deployments.create('team', { value: deployment('d') });
      const merged = await deployments.patch('team', 'd', 'application/merge-patch+json', Buffer.from('{"metadata":{"labels":{"a":"b"}}}'));
      expect(merged.object.metadata?.labels).toEqual({ a: 'b' });
      const json = await deployments.patch('team', 'd', 'application/json-patch+json', Buffer.from('[{"op":"replace","path":"/spec/replicas","value":4}]'));
      expect((json.object.spec as { replicas: number }).replicas).toBe(4);
      const strategic = await deployments.patch(
        'team',
        'd',
        'application/strategic-merge-patch+json',
        Buffer.from('{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}'),
      );
      const containers = (strategic.object.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers;
      expect(containers.map((c) => c.name).sort()).toEqual(['main', 'side']);
      expect(strategic.object.metadata?.generation).toBe(3);
    });

    it('answers 404 for a missing object and 415 for an unknown patch type', async () => {
      const cms = fx.registry('configmaps');
      expect(await statusOf(cms.patch('team', 'nope', 'application/merge-patch+json', Buffer.from('{}')))).toMatchObject({ code: 404 });
      await cms.create('team', { value: configMap('a') });
      expect(await statusOf(cms.patch('team', 'a', 'text/plain', Buffer.from('{}')))).toMatchObject({ code: 415 });
    });

    it('creates with apply, reports conflicts with other managers (409), and takes fields with force', async () => {
      const cms = fx.registry('configmaps');
      const applied = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  key: one\n');
      expect(await statusOf(cms.patch('team', 'a', 'application/apply-patch+yaml', applied))).toMatchObject({
        code: 422,
        message: expect.stringContaining('fieldManager'),
      });
      const first = await cms.patch('team', 'a', 'application/apply-patch+yaml', applied, { fieldManager: 'alice' });
      expect(first.created).toBe(true);
      expect(first.object.metadata?.managedFields?.[0]).toMatchObject({ manager: 'alice', operation: 'Apply' });
      const bob = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  key: two\n');
      expect(await statusOf(cms.patch('team', 'a', 'application/apply-patch+yaml', bob, { fieldManager: 'bob' }))).toMatchObject({
        code: 409,
        reason: 'Conflict',
      });
      const forced = await cms.patch('team', 'a', 'application/apply-patch+yaml', bob, { fieldManager: 'bob', force: true });
      expect(forced.object.data).toEqual({ key: 'two' });
    });
  });

  describe('scale', () => {
    it('reads and writes replicas through an autoscaling/v1 Scale', async () => {
      const deployments = fx.registry('deployments', 'apps');
      await deployments.create('team', { value: deployment('d', 2) });
      expect(await deployments.getScale('team', 'd')).toMatchObject({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        spec: { replicas: 2 },
        status: { replicas: 0, selector: 'app=d' },
      });
      const { scale } = await deployments.patchScale('team', 'd', 'application/merge-patch+json', Buffer.from('{"spec":{"replicas":5}}'));
      expect(scale.spec).toEqual({ replicas: 5 });
      expect((await deployments.get('team', 'd')).metadata?.generation).toBe(2);
      expect(await statusOf(deployments.updateScale('team', 'd', { value: { spec: { replicas: -1 } } }))).toMatchObject({
        code: 422,
        message: 'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      });
    });
  });

  describe('delete', () => {
    it('removes an object without finalizers and checks preconditions', async () => {
      const cms = fx.registry('configmaps');
      const { object } = await cms.create('team', { value: configMap('a') });
      expect(await statusOf(cms.delete('team', 'a', { preconditions: { uid: 'other' } }))).toMatchObject({ code: 409, reason: 'Conflict' });
      const result = await cms.delete('team', 'a', { preconditions: { uid: object.metadata?.uid } });
      expect(result.removed).toBe(true);
      expect(await statusOf(cms.get('team', 'a'))).toMatchObject({ code: 404 });
    });

    it('keeps an object with finalizers Terminating until an update removes the last one', async () => {
      const cms = fx.registry('configmaps');
      await cms.create('team', { value: configMap('a', { metadata: { name: 'a', finalizers: ['example.com/hold'] } }) });
      const watch = await cms.watch('team', { resourceVersion: (await cms.get('team', 'a')).metadata?.resourceVersion });
      const pending = await cms.delete('team', 'a');
      expect(pending.removed).toBe(false);
      expect(pending.object.metadata?.deletionTimestamp).toBeDefined();
      const again = await cms.delete('team', 'a');
      expect(again.object.metadata?.deletionTimestamp).toBe(pending.object.metadata?.deletionTimestamp);
      expect(
        await statusOf(
          cms.update('team', 'a', { value: { ...pending.object, metadata: { ...pending.object.metadata, finalizers: ['example.com/hold', 'x/y'] } } }),
        ),
      ).toMatchObject({
        code: 422,
      });
      const released = await cms.update('team', 'a', { value: { ...pending.object, metadata: { ...pending.object.metadata, finalizers: [] } } });
      expect(released.object.metadata?.name).toBe('a');
      expect(await statusOf(cms.get('team', 'a'))).toMatchObject({ code: 404 });
      const events = await next(watch, 2);
      watch.stop();
      expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    });

    it('deletes an unbound pod at once and gives a bound one its grace period', async () => {
      const pods = fx.registry('pods');
      const pod = (name: string, nodeName?: string) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { nodeName, terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'busybox' }] },
      });
      await pods.create('team', { value: pod('loose') });
      expect((await pods.delete('team', 'loose')).removed).toBe(true);
      await pods.create('team', { value: pod('bound', 'node-1') });
      const graceful = await pods.delete('team', 'bound');
      expect(graceful.removed).toBe(false);
      expect(graceful.object.metadata?.deletionGracePeriodSeconds).toBe(20);
      expect((await pods.delete('team', 'bound', { gracePeriodSeconds: 0 })).removed).toBe(true);
    });

    it('deletes collections by selector', async () => {
      const cms = fx.registry('configmaps');
      for (const name of ['a', 'b', 'c']) await cms.create('team', { value: configMap(name, { metadata: { name, labels: { keep: String(name === 'c') } } }) });
      const deleted = await cms.deleteCollection('team', { labelSelector: 'keep=false' });
      expect(deleted.map((o) => o.metadata?.name).sort()).toEqual(['a', 'b']);
      expect((await cms.list('team')).items.map((o) => o.metadata?.name)).toEqual(['c']);
    });
  });

  describe('namespaces', () => {
    it('marks a deleted namespace Terminating, refuses new content in it, and removes it once finalized', async () => {
      const namespaces = fx.registry('namespaces');
      const deleted = await namespaces.delete('', 'team');
      expect(deleted.removed).toBe(false);
      expect(deleted.object.status).toEqual({ phase: 'Terminating' });
      expect(await statusOf(fx.registry('configmaps').create('team', { value: configMap('a') }))).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'configmaps "a" is forbidden: unable to create new content in namespace team because it is being terminated',
      });
      const finalized = await namespaces.update('', 'team', { value: { metadata: { name: 'team' }, spec: { finalizers: [] } } }, {}, 'finalize');
      expect(finalized.object.metadata?.name).toBe('team');
      expect(await statusOf(namespaces.get('', 'team'))).toMatchObject({ code: 404 });
    });

    it('refuses to delete the system namespaces', async () => {
      await fx.namespace('default');
      expect(await statusOf(fx.registry('namespaces').delete('', 'default'))).toMatchObject({
        code: 403,
        message: 'namespaces "default" is forbidden: this namespace may not be deleted',
      });
    });
  });

  describe('list', () => {
    it('filters by label and field selectors and refuses unsupported fields', async () => {
      const cms = fx.registry('configmaps');
      await fx.namespace('other');
      await cms.create('team', { value: configMap('a', { metadata: { name: 'a', labels: { tier: 'web' } } }) });
      await cms.create('team', { value: configMap('b') });
      await cms.create('other', { value: configMap('a') });
      expect((await cms.list('team', { labelSelector: 'tier=web' })).items.map((o) => o.metadata?.name)).toEqual(['a']);
      expect((await cms.list('', { fieldSelector: 'metadata.name=a' })).items.map((o) => o.metadata?.namespace)).toEqual(['other', 'team']);
      expect(await statusOf(cms.list('team', { fieldSelector: 'spec.foo=x' }))).toMatchObject({ code: 400, message: 'field label not supported: spec.foo' });
      expect(await statusOf(cms.list('team', { labelSelector: '!!' }))).toMatchObject({ code: 400 });
    });

    it('pages with limit and continue over one snapshot, counting the remaining items', async () => {
      const cms = fx.registry('configmaps');
      for (const name of ['a', 'b', 'c', 'd', 'e']) await cms.create('team', { value: configMap(name) });
      const first = await cms.list('team', { limit: 2 });
      expect(first.items.map((o) => o.metadata?.name)).toEqual(['a', 'b']);
      expect(first.remainingItemCount).toBe(3);
      await cms.create('team', { value: configMap('f') });
      const second = await cms.list('team', { limit: 2, continue: first.continue });
      expect(second.resourceVersion).toBe(first.resourceVersion);
      const third = await cms.list('team', { limit: 2, continue: second.continue });
      expect([...second.items, ...third.items].map((o) => o.metadata?.name)).toEqual(['c', 'd', 'e']);
      expect(third.continue).toBeUndefined();
    });

    it('fills a selective page by reading on', async () => {
      const cms = fx.registry('configmaps');
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f'])
        await cms.create('team', { value: configMap(name, { metadata: { name, labels: { even: String('bdf'.includes(name)) } } }) });
      const page = await cms.list('team', { limit: 2, labelSelector: 'even=true' });
      expect(page.items.map((o) => o.metadata?.name)).toEqual(['b', 'd']);
      expect(page.remainingItemCount).toBeUndefined();
      const rest = await cms.list('team', { limit: 2, labelSelector: 'even=true', continue: page.continue });
      expect(rest.items.map((o) => o.metadata?.name)).toEqual(['f']);
    });

    it('answers an expired continue token with 410 and a token that goes on at the latest version', async () => {
      const cms = fx.registry('configmaps');
      for (const name of ['a', 'b', 'c']) await cms.create('team', { value: configMap(name) });
      const first = await cms.list('team', { limit: 1 });
      await cms.create('team', { value: configMap('d') });
      await fx.storage.compact(await fx.storage.currentRevision());
      const expired = await statusOf(cms.list('team', { limit: 1, continue: first.continue }));
      expect(expired).toMatchObject({
        code: 410,
        reason: 'Expired',
        message: expect.stringContaining('Continuing with the provided token results in an inconsistent list'),
      });
      const rest = await cms.list('team', { limit: 10, continue: expired.metadata?.continue });
      expect(rest.items.map((o) => o.metadata?.name)).toEqual(['b', 'c', 'd']);
    });

    it('answers resourceVersion=0 from the watch cache and Exact reads older than compaction with 410', async () => {
      const cms = fx.registry('configmaps');
      const { object } = await cms.create('team', { value: configMap('a') });
      const cached = await cms.list('team', { resourceVersion: '0' });
      expect(cached.items.length).toBeLessThanOrEqual(1);
      await cms.create('team', { value: configMap('b') });
      await fx.storage.compact(await fx.storage.currentRevision());
      expect(await statusOf(cms.list('team', { resourceVersion: object.metadata?.resourceVersion, resourceVersionMatch: 'Exact' }))).toMatchObject({
        code: 410,
      });
      expect(await statusOf(cms.list('team', { resourceVersionMatch: 'Exact' }))).toMatchObject({ code: 422 });
    });
  });

  describe('watch', () => {
    it('starts with the current state, then delivers changes, filtered by selector', async () => {
      const cms = fx.registry('configmaps');
      await cms.create('team', { value: configMap('a', { metadata: { name: 'a', labels: { w: 'y' } } }) });
      const watch = await cms.watch('team', { labelSelector: 'w=y' });
      await cms.create('team', { value: configMap('b') });
      await cms.patch('team', 'a', 'application/merge-patch+json', Buffer.from('{"metadata":{"labels":{"w":"n"}}}'));
      const events = await next(watch, 2);
      watch.stop();
      expect(events.map((e) => [e.type, (e.object as ApiObject).metadata?.name])).toEqual([
        ['ADDED', 'a'],
        ['DELETED', 'a'],
      ]);
      expect(events[0].object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    });

    it('answers a start older than the history with one ERROR event carrying 410, cached or not', async () => {
      const direct = registryFixture({ watchCache: false });
      try {
        await direct.namespace('team');
        for (const fixture of [fx, direct]) {
          const cms = fixture.registry('configmaps');
          await cms.create('team', { value: configMap('a') });
          await cms.create('team', { value: configMap('b') });
          await fixture.storage.compact(await fixture.storage.currentRevision());
          const watch = await cms.watch('team', { resourceVersion: '1' });
          const events = await next(watch, 2);
          expect(events).toHaveLength(1);
          expect(events[0]).toMatchObject({
            type: 'ERROR',
            object: { code: 410, reason: 'Expired', message: expect.stringMatching(/^too old resource version: 1 \(\d+\)$/) },
          });
        }
      } finally {
        await direct.close();
      }
    });

    it('watches storage directly without a cache, with bookmarks when asked', async () => {
      const direct = registryFixture({ watchCache: false });
      try {
        await direct.namespace('team');
        const cms = direct.registry('configmaps');
        const watch = await cms.watch('team', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
        await cms.create('team', { value: configMap('a') });
        const events = await next(watch, 2);
        watch.stop();
        expect(events[0]).toMatchObject({
          type: 'BOOKMARK',
          object: { kind: 'ConfigMap', metadata: { annotations: { 'svc.io/initial-events-end': 'true' } } },
        });
        expect(events[1]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
      } finally {
        await direct.close();
      }
    });
  });
});
