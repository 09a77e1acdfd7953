import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { ClusterRole, ConfigMap } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { parseAllDocuments } from 'yaml';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Conditions, setCondition } from '../helpers/conditions';
import { createOrUpdate } from '../helpers/create-or-update';
import { handleFinalizer } from '../helpers/finalizers';
import { setControllerReference } from '../helpers/owner-references';
import { updateStatusWithRetry } from '../helpers/update-status';
import { Manager } from '../manager/manager';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { defineResource, type ResourceType } from '../resources/define-resource';
import { eventually } from '../testing';
import { Validate, type AdmissionInput } from '../webhooks/admission-decorators';
import { operatorManifests } from './operator-manifests';
import { operatorPermissions } from './rbac-rules';

const websites = defineResource({
  group: 'manifests.example.com',
  kind: 'Website',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({ image: Type.String() }),
      status: Type.Object({ observedGeneration: Type.Optional(Type.Integer()), conditions: Type.Optional(Conditions()) }),
    },
  },
});
type Website = ResourceType<typeof websites>;
const FINALIZER = 'manifests.example.com/cleanup';

@Reconciler({ for: websites.resource, owns: [BUILTIN_RESOURCES.configMaps], reads: [BUILTIN_RESOURCES.services], writes: [BUILTIN_RESOURCES.secrets] })
class WebsiteReconciler implements Reconcile {
  async reconcile(request: Request, { client, cache }: ReconcileContext): Promise<void> {
    const site = cache.get(websites.resource, request);
    if (!site) return;
    const sites = client.resource(websites.resource);
    const { outcome, object } = await handleFinalizer(sites, site, FINALIZER, async () => undefined);
    if (outcome !== 'unchanged') return;
    await createOrUpdate(client.configMaps, { metadata: { name: `${request.name}-page`, namespace: request.namespace } }, (cm: ConfigMap) => {
      cm.data = { ...cm.data, image: object.spec.image };
      return setControllerReference(object, cm);
    });
    await updateStatusWithRetry(sites, object, (w: Website) => {
      const generation = w.metadata?.generation;
      w.status = {
        observedGeneration: generation,
        conditions: setCondition(w.status?.conditions, { type: 'Ready', status: 'True', reason: 'Published', observedGeneration: generation }),
      };
    });
  }
}

class WebsiteWebhooks {
  @Validate(websites.resource, { failurePolicy: 'Ignore' })
  pinned({ object }: AdmissionInput<Website>): string | void {
    if (object?.spec.image.endsWith(':latest')) return 'pin the image';
  }
}

describe('operatorPermissions', () => {
  it('grants what the declarations need, under Kubernetes’ group names, and nothing else', () => {
    const { clusterRules, namespaceRules } = operatorPermissions({
      reconcilers: [WebsiteReconciler],
      resources: [websites],
      leaderElectionNamespace: 'website-system',
      webhooks: { secretNamespace: 'website-system', secretName: 'website-operator-webhook-certificate' },
      protectedMetrics: true,
    });
    expect(clusterRules).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
        verbs: ['get', 'create', 'update', 'patch'],
      },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['manifests.example.com'], resources: ['websites'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      { apiGroups: ['manifests.example.com'], resources: ['websites/finalizers'], verbs: ['update'] },
      { apiGroups: ['manifests.example.com'], resources: ['websites/status'], verbs: ['get', 'update', 'patch'] },
    ]);
    expect(namespaceRules).toEqual([
      {
        namespace: 'website-system',
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update'] },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
        ],
      },
    ]);
  });
});

describe('operatorManifests under RBAC', () => {
  let env: TestEnvironment;
  let dir: string;
  const managers: Manager[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-operator-manifests-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'operator-token,system:serviceaccount:website-system:website-operator,uid-op,"system:serviceaccounts,system:authenticated"\n');
    env = await startTestEnvironment({ authentication: { tokenAuthFile: tokens }, authorization: { modes: ['RBAC'] } });
  });
  afterAll(async () => {
    await Promise.all(managers.splice(0).map((m) => m.stop()));
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('is YAML the API server takes whole, and its RBAC is exactly enough: one rule less and the operator is refused', async () => {
    const yaml = operatorManifests({
      name: 'website-operator',
      namespace: 'website-system',
      image: 'website-operator:0.1.0',
      reconcilers: [WebsiteReconciler],
      resources: [websites],
      webhooks: {},
    });
    expect(yaml).not.toMatch(/svc\.io|x-svc-/);
    const docs = parseAllDocuments(yaml).map((d) => d.toJSON() as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } });
    expect(docs.map((d) => d.kind)).toEqual([
      'Namespace',
      'CustomResourceDefinition',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Service',
      'Deployment',
      'PodDisruptionBudget',
    ]);
    for (const doc of docs) await env.client.forKind(doc.apiVersion, doc.kind).create(doc, { namespace: doc.metadata.namespace });

    const problems: string[] = [];
    const manager = new Manager({
      clientConfig: { server: env.url, ca: env.clientConfig.ca, token: 'operator-token', qps: -1 },
      logger: { info: () => undefined, error: (message, error) => problems.push(`${message}: ${error instanceof Error ? error.message : ''}`) },
      resources: [websites],
      leaderElection: { resourceName: 'website-operator', resourceNamespace: 'website-system' },
      webhooks: {
        name: 'website-operator',
        handlers: [new WebsiteWebhooks()],
        port: 0,
        service: { namespace: 'website-system', name: 'website-operator-webhooks' },
      },
    });
    manager.add(new WebsiteReconciler());
    managers.push(manager);
    await manager.start();
    await manager.elected;

    const sites = env.client.resource(websites.resource).inNamespace('default');
    await sites.create({ metadata: { name: 'home' }, spec: { image: 'httpd:2.4' } });
    await eventually(async () => expect((await sites.get('home')).status?.conditions?.[0]).toMatchObject({ status: 'True', observedGeneration: 1 }), 20_000);
    expect((await env.client.configMaps.inNamespace('default').get('home-page')).data).toEqual({ image: 'httpd:2.4' });
    await eventually(async () =>
      expect(await env.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).get('website-operator-validating')).toBeTruthy(),
    );
    expect((await env.client.secrets.inNamespace('website-system').get('website-operator-webhook-certificate')).type).toBe('kubernetes.io/tls');
    // A deletion held by the finalizer completes once the operator has removed it.
    await sites.delete('home');
    await eventually(async () => expect(await sites.get('home').catch((e: { status?: { code?: number } }) => e.status?.code)).toBe(404), 20_000);
    expect(problems.filter((p) => /forbidden/i.test(p))).toEqual([]);

    // Without the status rule the same operator is refused at its first status write.
    const roles = env.client.resource(BUILTIN_RESOURCES.clusterRoles);
    const role: ClusterRole = await roles.get('website-operator');
    await roles.update({ ...role, rules: (role.rules ?? []).filter((r) => !r.resources?.includes('websites/status')) });
    await sites.create({ metadata: { name: 'blog' }, spec: { image: 'httpd:2.4' } });
    await eventually(() => expect(problems.some((p) => p.includes('cannot update resource "websites/status"'))).toBe(true), 20_000);
    expect((await sites.get('blog')).status?.conditions).toBeUndefined();
  });
});
