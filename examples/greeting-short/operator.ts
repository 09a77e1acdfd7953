import { Type } from '@sinclair/typebox';
import { BUILTIN_RESOURCES, Client, ignoreNotFound } from '@svc/client';
import {
  defineResource,
  isControlledBy,
  Reconciler,
  setControllerReference,
  updateStatusWithRetry,
  type Reconcile,
  type ReconcileContext,
  type Request,
} from '@svc/runtime';

export const greetingType = defineResource({
  group: 'short.demo.svc.io',
  kind: 'Greeting',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({ message: Type.String({ minLength: 1 }), copies: Type.Integer({ minimum: 1, maximum: 5, default: 1 }) }),
      status: Type.Object({ configMaps: Type.Optional(Type.Integer()) }),
    },
  },
});
const greetings = greetingType.resource;

@Reconciler({ for: greetings, owns: [BUILTIN_RESOURCES.configMaps] })
export class GreetingReconciler implements Reconcile {
  constructor(private readonly client: Client) {}
  async reconcile({ namespace, name }: Request, { cache }: ReconcileContext): Promise<void> {
    const greeting = cache.get(greetings, { namespace, name });
    if (!greeting) return;
    for (let i = 1; i <= greeting.spec.copies; i++) {
      const copy = setControllerReference(greeting, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-${i}`, namespace },
        data: { message: greeting.spec.message },
      });
      await this.client.configMaps.apply(copy, { fieldManager: 'greeting-operator', force: true });
    }
    const extras = cache
      .list(BUILTIN_RESOURCES.configMaps, { namespace })
      .filter((cm) => isControlledBy(cm, greeting) && Number(cm.metadata?.name?.split('-').pop()) > greeting.spec.copies);
    for (const extra of extras) await this.client.configMaps.delete(extra.metadata!.name!, { namespace }).catch(ignoreNotFound);
    await updateStatusWithRetry(this.client.resource(greetings), greeting, (g) => void (g.status = { configMaps: greeting.spec.copies }));
  }
}
