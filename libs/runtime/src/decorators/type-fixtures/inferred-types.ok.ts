// Unannotated callbacks get the objects of their own resource; views such as KubeObject are accepted.
import type { ConfigMap, Deployment, Pod, Secret } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import type { KubeObject } from '@svc/informers';
import { anyOf, GenerationChanged, LabelChanged, onlyOn, Reconciler, type Predicate, type ReconcileContext, type Request, type Result } from '@svc/runtime';

type Equals<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function same<A, B>(proof: Equals<A, B>): void {
  void proof;
}

const podScheduled: Predicate<Pod> = (event) => Boolean(event.object.spec.nodeName);

@Reconciler({
  for: BUILTIN_RESOURCES.deployments,
  owns: [BUILTIN_RESOURCES.replicaSets],
  predicates: [GenerationChanged, (event) => (same<typeof event.object, Deployment>(true), true)],
  watches: [
    {
      resource: BUILTIN_RESOURCES.secrets,
      mapTo: (secret) => (same<typeof secret, Secret>(true), [{ namespace: secret.metadata?.namespace, name: secret.type ?? '' }]),
    },
    {
      resource: BUILTIN_RESOURCES.pods,
      mapTo: (pod, r: Rollouts) => r.deploymentsOf(pod),
      predicates: [onlyOn('delete'), anyOf(LabelChanged, podScheduled), podScheduled, (event) => (same<typeof event.object, Pod>(true), true)],
      delay: (r: Rollouts) => r.batchMs,
    },
    // A view of the objects is enough for a mapping that reads names only.
    { resource: BUILTIN_RESOURCES.configMaps, mapTo: (obj: KubeObject) => [{ name: obj.metadata?.name ?? '' }] },
    { resource: BUILTIN_RESOURCES.configMaps, mapTo: (cm: ConfigMap) => [{ name: cm.data?.owner ?? '' }] },
  ],
  concurrency: 2,
})
export class Rollouts {
  readonly batchMs = 50;
  deploymentsOf(pod: Pod): Request[] {
    return [{ namespace: pod.metadata?.namespace, name: pod.metadata?.labels?.app ?? '' }];
  }
  async reconcile(request: Request, context: ReconcileContext): Promise<Result> {
    void request;
    void context;
    return {};
  }
}

// No watches, a synchronous reconcile without parameters, an arrow-function property.
@Reconciler({ for: BUILTIN_RESOURCES.configMaps })
export class Plain {
  reconcile(): void {}
}

@Reconciler({ for: BUILTIN_RESOURCES.configMaps, name: 'arrow' })
export class Arrow {
  reconcile = async (request: Request): Promise<void> => {
    void request;
  };
}
