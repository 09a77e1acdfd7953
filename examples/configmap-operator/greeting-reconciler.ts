import type { ConfigMap } from '@svc/api';
import { BUILTIN_RESOURCES, Client, ignoreNotFound, type ResourceClient } from '@svc/client';
import {
  EventRecorder,
  isControlledBy,
  Reconciler,
  setControllerReference,
  TerminalError,
  updateStatusWithRetry,
  type Reconcile,
  type ReconcileContext,
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

/** The Greeting whose copy a ConfigMap's name would be (`hello-2`: `hello`), whoever owns it. */
export function greetingOfName(cm: ConfigMap): Request[] {
  const match = /^(.+)-[1-5]$/.exec(cm.metadata?.name ?? '');
  return match ? [{ namespace: cm.metadata?.namespace, name: match[1] }] : [];
}

/**
 * For each Greeting, keep `spec.copies` ConfigMaps that say `spec.message`, owned by it.
 * Woken by changes of Greetings and of the ConfigMaps they own; reads the world each time (from the
 * manager's caches), so a missed or repeated wake-up changes nothing.
 */
@Reconciler({
  for: greetings,
  owns: [BUILTIN_RESOURCES.configMaps],
  // A ConfigMap of someone else in the way of a copy wakes its Greeting when it changes or goes.
  watches: [{ resource: BUILTIN_RESOURCES.configMaps, mapTo: greetingOfName }],
})
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

  async reconcile(request: Request, { cache }: ReconcileContext): Promise<Result> {
    const { namespace, name } = request;
    // Reads come from the caches the manager keeps for `for`, `owns` and `watches`: no API call.
    const greeting = cache.get(greetings, request);
    // Gone: its ConfigMaps carry it as controller owner, so the garbage collector removes them.
    if (!greeting) return {};

    const copies = greeting.spec.copies ?? 1;
    const message = greeting.spec.message;
    const wanted = Array.from({ length: copies }, (_, i) => configMapName(name, i + 1));
    const owned = cache
      .list(BUILTIN_RESOURCES.configMaps, { namespace, labelSelector: { [GREETING_LABEL]: name } })
      .filter((cm) => isControlledBy(cm, greeting));
    const changes: string[] = [];

    for (const cmName of wanted) {
      // One of ours that lost its label is found by name.
      const current = owned.find((cm) => cm.metadata?.name === cmName) ?? cache.get(BUILTIN_RESOURCES.configMaps, { namespace, name: cmName });
      if (!current) {
        const desired: ConfigMap = { metadata: { name: cmName, namespace, labels: { [GREETING_LABEL]: name } }, data: { message } };
        await this.configMaps.create(setControllerReference(greeting, desired));
        changes.push(`created ${cmName}`);
      } else if (!isControlledBy(current, greeting)) {
        // Retrying cannot help until someone renames or deletes it (the watch wakes us then).
        await this.events.warning(greeting, 'NameTaken', `ConfigMap ${cmName} exists and is not this Greeting's`);
        throw new TerminalError(`ConfigMap ${namespace}/${cmName} exists and is not controlled by Greeting ${name}`);
      } else if (current.data?.message !== message || Object.keys(current.data ?? {}).length !== 1 || current.metadata?.labels?.[GREETING_LABEL] !== name) {
        // The update carries the resourceVersion read: a concurrent change is a conflict, retried.
        const labels = { ...current.metadata?.labels, [GREETING_LABEL]: name };
        await this.configMaps.update({ ...current, metadata: { ...current.metadata, labels }, data: { message } });
        changes.push(`updated ${cmName}`);
      }
    }
    for (const extra of owned.filter((cm) => !wanted.includes(cm.metadata?.name ?? ''))) {
      // Already gone is as good as deleted.
      await this.configMaps.delete(extra.metadata!.name!, { namespace }).catch(ignoreNotFound);
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
