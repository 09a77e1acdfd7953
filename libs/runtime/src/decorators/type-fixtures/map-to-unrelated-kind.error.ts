// error TS1238 "@Reconciler: watches[0].mapTo takes another type than the objects of watches[0].resource"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

// Neither type fits the other (both have a required spec of another shape): still one short message.
@Reconciler({ for: BUILTIN_RESOURCES.services, watches: [{ resource: BUILTIN_RESOURCES.deployments, mapTo: (pod: Pod) => [{ name: pod.spec.nodeName ?? '' }] }] })
export class MapsPodsFromDeployments {
  reconcile(request: Request): void {
    void request;
  }
}
