// error TS1238 "@Reconciler: reconcile must take (request: Request, context: ReconcileContext)"
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler, type Request } from '@svc/runtime';

@Reconciler({ for: BUILTIN_RESOURCES.configMaps })
export class ReturnsAString {
  async reconcile(request: Request): Promise<string> {
    return request.name;
  }
}
