import type { Node, Taint } from '@svc/api';
import type { Client } from '@svc/client';
import { isConflict, isNotFound, metaTime } from '@svc/machinery';
import { sameTaint } from './node-helpers';

const ATTEMPTS = 5;

/** The taints after adding (replacing any of the same key and effect) and removing; undefined when nothing changes. */
export function swappedTaints(current: readonly Taint[], add: readonly Taint[], remove: readonly Taint[], now: Date): Taint[] | undefined {
  const kept = current.filter((t) => !remove.some((r) => sameTaint(r, t)));
  let changed = kept.length !== current.length;
  for (const taint of add) {
    const existing = kept.findIndex((t) => sameTaint(t, taint));
    if (existing >= 0 && (kept[existing].value ?? '') === (taint.value ?? '')) continue;
    // A NoExecute taint says when it came, which tolerations count from.
    const added: Taint = taint.effect === 'NoExecute' ? { ...taint, timeAdded: metaTime(now) } : { ...taint };
    if (existing >= 0) kept[existing] = added;
    else kept.push(added);
    changed = true;
  }
  return changed ? kept : undefined;
}

/**
 * Kubernetes' SwapNodeControllerTaint: adds and removes taints in one write, with the node's
 * resourceVersion as precondition, reading the node again after a conflict. False when the node is
 * gone or the conflicts did not end.
 */
export async function swapNodeTaints(client: Client, node: Node, add: readonly Taint[], remove: readonly Taint[]): Promise<boolean> {
  let current = node;
  const name = node.metadata?.name ?? '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const taints = swappedTaints(current.spec?.taints ?? [], add, remove, new Date());
    if (taints === undefined) return true;
    try {
      await client.nodes.patch(name, { metadata: { resourceVersion: current.metadata?.resourceVersion }, spec: { taints } }, 'merge');
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      if (!isConflict(error)) throw error;
      current = await client.nodes.get(name);
    }
  }
  return false;
}
