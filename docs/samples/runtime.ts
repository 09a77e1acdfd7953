/** The operator of the tutorial (docs/operator-tutorial.md), run by test/docs-samples.e2e-spec.ts. */
import 'reflect-metadata';
import { Type } from '@sinclair/typebox';
import type { ConfigMap } from '@svc/api';
import type { TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { eventually } from '@svc/informers/testing';
import {
  Conditions,
  createManager,
  createOrUpdate,
  defineResource,
  handleFinalizer,
  isConditionCurrentAndTrue,
  operatorManifests,
  Reconciler,
  setCondition,
  setControllerReference,
  updateStatusWithRetry,
  Validate,
  type AdmissionInput,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type ResourceType,
} from '@svc/runtime';

// #region doc resource
export const websiteType = defineResource({
  group: 'tutorial.example.com',
  kind: 'Website',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({ image: Type.String({ minLength: 1 }), title: Type.String({ maxLength: 100 }) }),
      status: Type.Object({ observedGeneration: Type.Optional(Type.Integer()), conditions: Type.Optional(Conditions()) }),
      printerColumns: [{ name: 'Image', type: 'string', jsonPath: '.spec.image' }],
      validations: [{ rule: "!self.spec.image.endsWith(':latest')", message: 'pin the image', fieldPath: '.spec.image' }],
    },
  },
});
export type Website = ResourceType<typeof websiteType>;
const websites = websiteType.resource;
// #endregion

// #region doc reconciler
const FINALIZER = 'tutorial.example.com/page';

@Reconciler({ for: websites, owns: [BUILTIN_RESOURCES.configMaps] })
export class WebsiteReconciler implements Reconcile {
  async reconcile(request: Request, { client, cache }: ReconcileContext): Promise<void> {
    const site = cache.get(websites, request);
    if (!site) return;
    // Added while it lives; removed (after the cleanup) once it is being deleted.
    const { outcome, object } = await handleFinalizer(client.resource(websites), site, FINALIZER, () => undefined);
    if (outcome !== 'unchanged') return; // the write wakes this reconciler again
    // The owned page: written only when it differs, deleted with its Website by the garbage collector.
    await createOrUpdate(client.configMaps, { metadata: { name: `${request.name}-page`, namespace: request.namespace } }, (cm: ConfigMap) => {
      cm.data = { ...cm.data, 'index.html': `<h1>${object.spec.title}</h1>` };
      return setControllerReference(object, cm);
    });
    await updateStatusWithRetry(client.resource(websites), object, (w: Website) => {
      const generation = w.metadata?.generation; // the spec this status describes
      w.status = {
        observedGeneration: generation,
        conditions: setCondition(w.status?.conditions, { type: 'Ready', status: 'True', reason: 'Published', observedGeneration: generation }),
      };
    });
  }
}
// #endregion

// #region doc webhooks
export class WebsiteWebhooks {
  @Validate(websites, { operations: ['UPDATE'] })
  keepsTitle({ object, oldObject }: AdmissionInput<Website>): string | void {
    if (object && oldObject && object.spec.title !== oldObject.spec.title) return 'the title of a website is set once';
  }
}
// #endregion

export async function sample(env: TestEnvironment): Promise<string[]> {
  const seen: string[] = [];
  // #region doc run
  const { manager } = createManager({
    clientConfig: env.clientConfig, // in a pod: await loadClientConfig({}) finds its service account
    reconcilers: [WebsiteReconciler],
    resources: [websiteType], // the CRD, applied and Established before the caches start
    leaderElection: { resourceName: 'website-operator', resourceNamespace: 'default' },
    http: { port: 0 }, // /healthz, /readyz, /metrics; --health-probe-bind-address=:8081 in a pod
    webhooks: { name: 'website-operator', handlers: [new WebsiteWebhooks()] }, // development mode: this process's URL
    logger: { info: () => undefined, error: (message) => seen.push(message) },
  });
  await manager.start();
  await manager.elected;

  const client = env.client.resource(websites).inNamespace('default');
  await client.create({ metadata: { name: 'home' }, spec: { image: 'httpd:2.4', title: 'Home' } });
  const ready = await eventually(async () => {
    const site = await client.get('home');
    if (!isConditionCurrentAndTrue(site, 'Ready')) throw new Error('not ready yet');
    return site;
  }, 30_000);
  // #endregion
  seen.push(`ready at generation ${ready.status?.observedGeneration}`);
  seen.push((await env.client.configMaps.get('home-page', { namespace: 'default' })).data?.['index.html'] ?? '');
  // The API server takes up the webhook configuration from its watch, a moment after the manager installed it.
  await eventually(async () => {
    if (
      await client.patch('home', { spec: { title: 'Elsewhere' } }, 'merge', { dryRun: true }).then(
        () => true,
        () => false,
      )
    )
      throw new Error('not yet refused');
  }, 10_000);
  await client.patch('home', { spec: { title: 'Elsewhere' } }).catch((error: Error) => seen.push(error.message.split(': ').pop()!));
  await client.create({ metadata: { name: 'latest' }, spec: { image: 'httpd:latest', title: 'Latest' } }).catch((error: Error) => seen.push(error.message));
  await client.delete('home');
  await eventually(async () => {
    if (
      await client.get('home').then(
        () => true,
        () => false,
      )
    )
      throw new Error('still there');
  }, 30_000);
  await manager.stop();

  // #region doc manifests
  const yaml = operatorManifests({
    name: 'website-operator',
    namespace: 'website-system',
    image: 'registry.example.com/website-operator:1.0.0',
    reconcilers: [WebsiteReconciler],
    resources: [websiteType],
    webhooks: {}, // with a Service, every replica serving them
  });
  // kubectl apply -f: Namespace, CRD, ServiceAccount, derived RBAC, Service, Deployment, PodDisruptionBudget
  // #endregion
  seen.push(`${yaml.split('\n---\n').length} manifests`);
  return seen;
}
