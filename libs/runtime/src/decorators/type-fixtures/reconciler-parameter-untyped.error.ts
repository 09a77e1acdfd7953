// error TS1238 "@Reconciler: give the reconciler parameter of watches[0].delay the class as its type"
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

@Reconciler({ for: BUILTIN_RESOURCES.services, watches: [{ resource: BUILTIN_RESOURCES.pods, mapTo: () => [], delay: (_r) => 100 }] })
export class Delayed {
  readonly periodMs = 100;
  reconcile(request: Request): void {
    void request;
  }
}
