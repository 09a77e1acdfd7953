// error TS1238 "@Reconciler: watches[0].mapTo takes another type than the objects of watches[0].resource"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

// The watch holds ConfigMaps; the mapping was written for pods.
@Reconciler({
  for: BUILTIN_RESOURCES.deployments,
  watches: [{ resource: BUILTIN_RESOURCES.configMaps, mapTo: (pod: Pod) => [{ namespace: pod.metadata?.namespace, name: pod.spec.nodeName ?? '' }] }],
})
export class MapsPods {
  reconcile(request: Request): void {
    void request;
  }
}
