// error TS1238 "@Reconciler: the class has no reconcile(request: Request, context: ReconcileContext) method"
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler } from '@svc/runtime';

@Reconciler({ for: BUILTIN_RESOURCES.configMaps })
export class ForgotReconcile {
  sync(): void {}
}
