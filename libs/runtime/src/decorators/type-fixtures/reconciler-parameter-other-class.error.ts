// error TS1238 "@Reconciler: the class is not the reconciler type watches[0].mapTo takes"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

class Other {
  servicesOf(pod: Pod): Request[] {
    return [{ name: pod.metadata?.name ?? '' }];
  }
}

// The mapping reads another class's caches: at run time it would get this one.
@Reconciler({ for: BUILTIN_RESOURCES.services, watches: [{ resource: BUILTIN_RESOURCES.pods, mapTo: (pod, r: Other) => r.servicesOf(pod) }] })
export class Copied {
  reconcile(request: Request): void {
    void request;
  }
}
