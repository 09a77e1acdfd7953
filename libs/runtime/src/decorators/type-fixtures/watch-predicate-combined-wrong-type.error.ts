// error TS1238 "@Reconciler: watches[0].predicates[0] takes events of another type than the objects of watches[0].resource"
import type { Pod } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { anyOf, GenerationChanged, Reconciler, type Predicate, type Request } from '@svc/runtime';

const podScheduled: Predicate<Pod> = (event) => Boolean(event.object.spec.nodeName);

// anyOf judges what all of its predicates judge: pods, here.
@Reconciler({
  for: BUILTIN_RESOURCES.services,
  watches: [{ resource: BUILTIN_RESOURCES.secrets, mapTo: (secret) => [{ name: secret.metadata?.name ?? '' }], predicates: [anyOf(GenerationChanged, podScheduled)] }],
})
export class FiltersSecretsAsPods {
  reconcile(request: Request): void {
    void request;
  }
}
