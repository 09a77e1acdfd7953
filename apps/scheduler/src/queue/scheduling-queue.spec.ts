import type { Pod } from '@svc/api';
import type { ClusterEvent } from './cluster-event';
import { SchedulingQueue } from './scheduling-queue';

let now = 0;
const pod = (name: string, priority?: number, labels?: Record<string, string>): Pod => ({
  metadata: { name, namespace: 'ns', uid: name, labels },
  spec: { containers: [{ name: 'c', image: 'i' }], priority },
});

function queue(): SchedulingQueue {
  return new SchedulingQueue({
    initialBackoffMs: 1_000,
    maxBackoffMs: 10_000,
    maxInUnschedulableMs: 300_000,
    // Only node additions cure NodeResourcesFit here.
    cures: (plugin, event) => plugin !== 'NodeResourcesFit' || (event.resource === 'Node' && event.action === 'Add'),
    now: () => now,
  });
}

const nodeAdd: ClusterEvent = { resource: 'Node', action: 'Add' };
const podDelete: ClusterEvent = { resource: 'AssignedPod', action: 'Delete' };

describe('SchedulingQueue', () => {
  beforeEach(() => (now = 0));

  it('pops by priority, then by age', async () => {
    const q = queue();
    q.add(pod('a'));
    now = 1;
    q.add(pod('b', 10));
    now = 2;
    q.add(pod('c'));
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await q.pop())!.info.key);
    expect(order).toEqual(['ns/b', 'ns/a', 'ns/c']);
  });

  it('waits for a pod when none is active, and ends the wait on close or abort', async () => {
    const q = queue();
    const waiting = q.pop();
    q.add(pod('late'));
    expect((await waiting)?.info.key).toBe('ns/late');
    const abort = new AbortController();
    const aborted = q.pop(abort.signal);
    abort.abort();
    expect(await aborted).toBeUndefined();
    const closed = q.pop();
    q.close();
    expect(await closed).toBeUndefined();
  });

  it('parks an unschedulable pod until an event that may cure it, then backs it off 1 s doubling to 10 s', async () => {
    const q = queue();
    q.add(pod('a'));
    let popped = (await q.pop())!;
    const cycle = q.schedulingCycle;
    popped.unschedulablePlugins = new Set(['NodeResourcesFit']);
    q.addUnschedulable(popped, cycle);
    expect(q.pending()).toEqual({ active: 0, backoff: 0, unschedulable: 1 });
    expect(q.moveOnEvent(podDelete)).toBe(0);
    // Still within its first second of backoff: the move puts it in backoff.
    expect(q.moveOnEvent(nodeAdd)).toBe(1);
    expect(q.pending()).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
    now = 999;
    q.flushBackoff();
    expect(q.pending().active).toBe(0);
    now = 1_000;
    q.flushBackoff();
    expect(q.pending().active).toBe(1);
    popped = (await q.pop())!;
    expect(popped.attempts).toBe(2);
    expect([1, 2, 3, 4, 5, 6].map((n) => q.backoffDurationMs(n))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('backs off rather than parks a pod when a move happened while it was being tried', async () => {
    const q = queue();
    q.add(pod('a'));
    const popped = (await q.pop())!;
    const cycle = q.schedulingCycle;
    q.moveOnEvent(nodeAdd);
    q.addUnschedulable(popped, cycle);
    expect(q.pending()).toEqual({ active: 0, backoff: 1, unschedulable: 0 });
  });

  it('tries an unschedulable pod again when its spec changes, or after the longest wait', async () => {
    const q = queue();
    q.add(pod('a'));
    q.add(pod('b'));
    for (const p of [await q.pop(), await q.pop()]) q.addUnschedulable(p!, q.schedulingCycle);
    now = 5_000;
    q.update(pod('a'), pod('a', undefined, { changed: 'yes' }));
    expect(q.pending()).toEqual({ active: 1, backoff: 0, unschedulable: 1 });
    now = 300_000;
    q.flushUnschedulableLeftover();
    expect(q.pending()).toEqual({ active: 2, backoff: 0, unschedulable: 0 });
  });

  it('forgets a deleted pod wherever it is', async () => {
    const q = queue();
    q.add(pod('a'));
    q.add(pod('b'));
    q.delete(pod('a'));
    const popped = (await q.pop())!;
    q.delete(pod('b'));
    q.addUnschedulable(popped, q.schedulingCycle);
    expect(q.pending()).toEqual({ active: 0, backoff: 0, unschedulable: 0 });
    expect(q.has('ns/b')).toBe(false);
  });
});
