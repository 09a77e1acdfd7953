// error TS1238 "@Reconciler: predicates[0] takes events of another type than the objects of `for`"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Predicate, type Request } from '@svc/runtime';

const podScheduled: Predicate<Pod> = (event) => Boolean(event.object.spec.nodeName);

@Reconciler({ for: BUILTIN_RESOURCES.configMaps, predicates: [podScheduled] })
export class RefilteredConfigMaps {
  reconcile(request: Request): void {
    void request;
  }
}
