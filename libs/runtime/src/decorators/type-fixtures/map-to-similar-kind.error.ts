// error TS1238 "@Reconciler: watches[1].mapTo takes another type than the objects of watches[1].resource"
import type { Secret } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

// A ConfigMap fits the Secret type field by field (all of a Secret's other fields are optional),
// but it is not a Secret: the second watch is refused.
@Reconciler({
  for: BUILTIN_RESOURCES.deployments,
  watches: [
    { resource: BUILTIN_RESOURCES.secrets, mapTo: (secret: Secret) => [{ name: secret.type ?? '' }] },
    { resource: BUILTIN_RESOURCES.configMaps, mapTo: (secret: Secret) => [{ name: secret.type ?? '' }] },
  ],
})
export class MapsSecrets {
  reconcile(request: Request): void {
    void request;
  }
}
