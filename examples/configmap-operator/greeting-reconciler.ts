import type { ConfigMap } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ResourceClient } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import {
  EventRecorder,
  isControlledBy,
  Reconciler,
  setControllerReference,
  updateStatusWithRetry,
  type Reconcile,
  type Request,
  type Result,
} from '@svc/runtime';
import { greetings, type Greeting } from './greeting';

/** The label every ConfigMap of a Greeting carries, so that one list finds them all. */
export const GREETING_LABEL = 'demo.svc.io/greeting';

/** The name of the i-th ConfigMap (from 1) of a Greeting. */
export function configMapName(greeting: string, i: number): string {
  return `${greeting}-${i}`;
}

/**
 * For each Greeting, keep `spec.copies` ConfigMaps that say `spec.message`, owned by it.
 * Woken by changes of Greetings and of the ConfigMaps they own; reads the world each time, so a
 * missed or repeated wake-up changes nothing.
 */
@Reconciler({ for: greetings, owns: [BUILTIN_RESOURCES.configMaps] })
export class GreetingReconciler implements Reconcile {
  private readonly greetings: ResourceClient<Greeting>;
  private readonly configMaps: ResourceClient<ConfigMap>;
  private readonly events: EventRecorder;

  // The container hands in the manager's client: its writes are remembered per object, so the
  // next reconcile of the same Greeting waits until the cache has seen them.
  constructor(client: Client) {
    this.greetings = client.resource(greetings);
    this.configMaps = client.configMaps;
    this.events = new EventRecorder(client, { component: 'greeting-operator' });
  }

  async reconcile({ namespace, name }: Request): Promise<Result> {
    const greeting = await this.greetings.get(name, { namespace }).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    // Gone: its ConfigMaps carry it as controller owner, so the garbage collector removes them.
    if (!greeting) return {};

    const copies = greeting.spec.copies ?? 1;
    const message = greeting.spec.message;
    const wanted = Array.from({ length: copies }, (_, i) => configMapName(name, i + 1));
    const owned = (await this.configMaps.listAll({ namespace, labelSelector: `${GREETING_LABEL}=${name}` })).items.filter((cm) =>
      isControlledBy(cm, greeting),
    );
    const changes: string[] = [];

    for (const cmName of wanted) {
      const current = owned.find((cm) => cm.metadata?.name === cmName);
      if (!current) {
        const desired: ConfigMap = { metadata: { name: cmName, namespace, labels: { [GREETING_LABEL]: name } }, data: { message } };
        await this.configMaps.create(setControllerReference(greeting, desired));
        changes.push(`created ${cmName}`);
      } else if (current.data?.message !== message || Object.keys(current.data ?? {}).length !== 1) {
        // The update carries the resourceVersion read: a concurrent change is a conflict, retried.
        await this.configMaps.update({ ...current, data: { message } });
        changes.push(`updated ${cmName}`);
      }
    }
    for (const extra of owned.filter((cm) => !wanted.includes(cm.metadata?.name ?? ''))) {
      await this.configMaps.delete(extra.metadata!.name!, { namespace }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      changes.push(`deleted ${extra.metadata!.name}`);
    }

    const generation = greeting.metadata?.generation;
    if (greeting.status?.observedGeneration !== generation || greeting.status?.configMaps !== copies) {
      await updateStatusWithRetry(this.greetings, greeting, (g) => {
        g.status = { observedGeneration: generation, configMaps: copies };
      });
    }
    if (changes.length > 0) await this.events.normal(greeting, 'Synced', `${changes.join(', ')}`);
    // Done until a Greeting or one of its ConfigMaps changes.
    return {};
  }
}
