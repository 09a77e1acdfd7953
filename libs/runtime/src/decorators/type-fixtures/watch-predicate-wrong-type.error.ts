// error TS1238 "@Reconciler: watches[0].predicates[1] takes events of another type than the objects of watches[0].resource"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { GenerationChanged, Reconciler, type Predicate, type Request } from '@svc/runtime';

const podScheduled: Predicate<Pod> = (event) => Boolean(event.object.spec.nodeName);

@Reconciler({
  for: BUILTIN_RESOURCES.services,
  watches: [{ resource: BUILTIN_RESOURCES.configMaps, mapTo: (cm) => [{ name: cm.metadata?.name ?? '' }], predicates: [GenerationChanged, podScheduled] }],
})
export class FiltersConfigMapsAsPods {
  reconcile(request: Request): void {
    void request;
  }
}
