// error TS1238 "@Reconciler: reconcile must take (request: Request, context: ReconcileContext)"
import { BUILTIN_RESOURCES } from '@svc/client';
import { Reconciler } from '@svc/runtime';

@Reconciler({ for: BUILTIN_RESOURCES.configMaps })
export class TakesAName {
  async reconcile(name: string): Promise<void> {
    void name;
  }
}
