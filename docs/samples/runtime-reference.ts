/** The blocks of libs/runtime/README.md, run by test/docs-samples.e2e-spec.ts against a real API server. */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, loadClientConfig, type ClientConfig } from '@svc/client';
import { eventually } from '@svc/informers/testing';
import {
  Conditions,
  createManager,
  Default,
  GenerationChanged,
  Reconciler,
  Runnable,
  RuntimeModule,
  setCondition,
  TerminalError,
  updateStatusWithRetry,
  Validate,
  defineResource,
  type AdmissionInput,
  type CreateManagerOptions,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type ResourceType,
  type Result,
  type RunContext,
} from '@svc/runtime';

// #region doc reconciler
@Reconciler({ for: BUILTIN_RESOURCES.deployments, owns: [BUILTIN_RESOURCES.replicaSets], concurrency: 4, predicates: [GenerationChanged] })
class DeploymentReconciler implements Reconcile {
  constructor(private readonly client: Client) {} // the manager's client (read-your-writes)
  async reconcile(request: Request, { cache }: ReconcileContext): Promise<Result> {
    const d = cache.get(BUILTIN_RESOURCES.deployments, request); // a Deployment, from the cache
    if (!d) return {};
    if (!d.spec.template.spec?.containers.length) throw new TerminalError('no containers'); // not retried
    await this.client.replicaSets.delete(`${request.name}-old`, { namespace: request.namespace }).catch(ignoreNotFound);
    return { requeueAfter: 30_000 };
  }
}
// #endregion

// #region doc runnable
@Runnable({ name: 'orphan-pod-sweeper', reads: [BUILTIN_RESOURCES.pods, BUILTIN_RESOURCES.nodes] })
class OrphanPodSweeper implements Runnable {
  constructor(private readonly client: Client) {}
  async run(signal: AbortSignal, { cache }: RunContext): Promise<void> {
    while (!signal.aborted) {
      // Each second, deletes the pods bound to a node that does not exist (as the pod GC does).
      const nodes = new Set(cache.list(BUILTIN_RESOURCES.nodes).map((n) => n.metadata?.name));
      for (const pod of cache.list(BUILTIN_RESOURCES.pods)) {
        if (!pod.spec.nodeName || nodes.has(pod.spec.nodeName)) continue;
        await this.client.pods.delete(pod.metadata?.name ?? '', { namespace: pod.metadata?.namespace, gracePeriodSeconds: 0 }).catch(ignoreNotFound);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
// createManager({ clientConfig, reconcilers: [...], runnables: [OrphanPodSweeper] });
// #endregion

// #region doc resource
export const greetingType = defineResource({
  group: 'demo.svc.io',
  kind: 'Greeting',
  shortNames: ['gr'],
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({ message: Type.String({ minLength: 1 }), copies: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })) }),
      status: Type.Object({ configMaps: Type.Optional(Type.Integer()) }),
      printerColumns: [{ name: 'Message', type: 'string', jsonPath: '.spec.message' }],
      validations: [{ rule: 'self.spec.message != "forbidden"', message: 'not that one' }], // CEL, x-kubernetes-validations
    },
  },
});
export type Greeting = ResourceType<typeof greetingType>; // { metadata?, spec: { message: string; copies?: number }, status?: ... }
// createManager({ clientConfig, reconcilers, resources: [greetingType] }); // applies the CRD, waits until it is served
// #endregion

const widgetType = defineResource({
  group: 'demo.svc.io',
  kind: 'Widget',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ size: Type.Integer(), color: Type.Optional(Type.String()) }) } },
});
type Widget = ResourceType<typeof widgetType>;
const widgets = widgetType.resource;

// #region doc webhooks
class WidgetWebhooks {
  @Default(widgets) // a MutatingWebhookConfiguration; the answer is the JSON patch of the change
  paint(widget: Widget): Widget {
    return { ...widget, spec: { ...widget.spec, color: widget.spec.color ?? 'blue' } };
  }

  @Validate(widgets, { operations: ['CREATE', 'UPDATE'] }) // a ValidatingWebhookConfiguration
  sized({ object, oldObject }: AdmissionInput<Widget>): string | void {
    if (object && oldObject && object.spec.size < oldObject.spec.size) return 'a widget never shrinks'; // denied, with this message
  }
}
function withReplicas(clientConfig: ClientConfig): CreateManagerOptions {
  return {
    clientConfig,
    reconcilers: [],
    leaderElection: { resourceName: 'widget-operator', resourceNamespace: 'widget-system' },
    webhooks: {
      handlers: [new WidgetWebhooks()],
      name: 'widget-operator',
      host: '0.0.0.0', // where each replica listens (the pod's address)
      port: 9443,
      service: { namespace: 'widget-system', name: 'widget-operator-webhooks' }, // port 443 by default
    },
  };
}
// #endregion

const websiteType = defineResource({
  group: 'demo.svc.io',
  kind: 'Website',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({ title: Type.String() }),
      status: Type.Object({ observedGeneration: Type.Optional(Type.Integer()), conditions: Type.Optional(Conditions()) }),
    },
  },
});
type Website = ResourceType<typeof websiteType>;

async function markAvailable(client: Client, site: Website): Promise<void> {
  const websites = client.resource(websiteType.resource);
  // #region doc conditions
  await updateStatusWithRetry(websites, site, (w) => {
    const generation = w.metadata?.generation; // the spec this status describes
    w.status = {
      observedGeneration: generation,
      conditions: setCondition(w.status?.conditions, { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: generation }),
    };
  });
  // #endregion
}

/** Runs each block of the README; what each did, in order. */
export async function sample(env: TestEnvironment): Promise<string[]> {
  const seen: string[] = [];
  const silent = { info: () => undefined, error: () => undefined };
  const svcconfig = env.svcconfig;
  await env.client.namespaces.create({ metadata: { name: 'reference' } }); // of its own: other samples share the server

  // #region doc running
  const { manager } = createManager({
    clientConfig: await loadClientConfig({ svcconfig }), // svcconfig undefined: $KUBECONFIG, else ~/.kube/config
    reconcilers: [DeploymentReconciler],
    runnables: [OrphanPodSweeper],
    resources: [greetingType, widgetType, websiteType],
    http: { port: 0 }, // /healthz, /readyz, /metrics
    leaderElection: { resourceName: 'reference', resourceNamespace: 'reference' }, // or leaderElectionConfigFromFlags(parsed --leader-elect* flags)
    webhooks: { name: 'reference', handlers: [new WidgetWebhooks()] }, // development mode: this process's URL
    logger: silent,
  });
  await manager.start();
  // in a process of its own: process.on('SIGTERM', () => void manager.stop().then(() => process.exit(0)));
  // #endregion
  try {
    await manager.elected;
    seen.push(`leading ${manager.isLeader()}`);

    // The reconciler deletes `<deployment>-old`.
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'busybox:1.36' }] } };
    await env.client.replicaSets.create(
      { metadata: { name: 'web-old' }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
      { namespace: 'reference' },
    );
    await env.client.deployments.create(
      { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
      {
        namespace: 'reference',
      },
    );
    await eventually(async () => {
      const left = await env.client.replicaSets.get('web-old', { namespace: 'reference' }).then(
        () => true,
        () => false,
      );
      if (left) throw new Error('not reconciled yet');
    }, 20_000);
    seen.push('deployment reconciled');

    // The runnable deletes a pod bound to a node that does not exist.
    await env.client.pods.create(
      { metadata: { name: 'stray' }, spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'busybox:1.36' }] } },
      { namespace: 'reference' },
    );
    await eventually(async () => {
      const left = await env.client.pods.get('stray', { namespace: 'reference' }).then(
        () => true,
        () => false,
      );
      if (left) throw new Error('not swept yet');
    }, 10_000);
    seen.push('stray swept');

    // The resource type: its CRD was applied; CEL refuses the forbidden message.
    const greetings = env.client.resource(greetingType.resource).inNamespace('reference');
    const hello = await greetings.create({ metadata: { name: 'hello' }, spec: { message: 'hi' } });
    seen.push(`copies ${hello.spec.copies}`);
    await greetings.create({ metadata: { name: 'bad' }, spec: { message: 'forbidden' } }).catch((error: Error) => seen.push(error.message.split(': ').pop()!));
    const sites = env.client.resource(websiteType.resource).inNamespace('reference');
    await markAvailable(env.client, await sites.create({ metadata: { name: 'home' }, spec: { title: 'Home' } }));
    seen.push(`ready ${(await sites.get('home')).status?.conditions?.[0]?.status}`);

    // The webhooks in development mode: defaulted, then a shrink denied.
    const widgetClient = env.client.resource(widgets).inNamespace('reference');
    const made = await eventually(async () => {
      const w = await widgetClient.create({ metadata: { generateName: 'w-' }, spec: { size: 3 } });
      if (w.spec.color !== 'blue') throw new Error('not defaulted yet');
      return w;
    }, 10_000);
    seen.push(`color ${made.spec.color}`);
    await widgetClient.patch(made.metadata!.name!, { spec: { size: 1 } }).catch((error: Error) => seen.push(error.message.split(': ').pop()!));
    seen.push(`service ${withReplicas(env.clientConfig).webhooks?.service?.name}`);
  } finally {
    await manager.stop();
  }

  // #region doc nest
  @Module({ imports: [RuntimeModule.forRoot({ clientConfig: env.clientConfig, http: { port: 0 }, reconcilers: [DeploymentReconciler], logger: silent })] })
  class AppModule {}
  // #endregion
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  await app.init();
  seen.push(`nest ${app.get(Client) instanceof Client}`);
  await app.close();
  return seen;
}

/** The blocks on testing operators, each with an environment of its own. */
export async function testingSample(): Promise<string[]> {
  const seen: string[] = [];
  {
    // #region doc testing
    const env = await startTestEnvironment(); // in-process API server, temporary embedded store
    // env.clientConfig, env.client, env.url; await env.stop();
    // #endregion
    seen.push(new URL(env.url).protocol);
    await env.stop();
  }
  // #region doc testing-controllers
  const env = await startTestEnvironment({ controllers: ['garbagecollector', 'namespace', 'deployment', 'replicaset'] });
  // deleting an owner collects its dependents; deleting a namespace removes its objects, then the namespace
  // #endregion
  try {
    await env.client.namespaces.create({ metadata: { name: 'going' } });
    await env.client.configMaps.create({ metadata: { name: 'c' } }, { namespace: 'going' });
    await env.client.namespaces.delete('going');
    await eventually(async () => {
      const left = await env.client.namespaces.get('going').then(
        () => true,
        () => false,
      );
      if (left) throw new Error('namespace still there');
    }, 30_000);
    seen.push('namespace gone');
  } finally {
    await env.stop();
  }
  return seen;
}
