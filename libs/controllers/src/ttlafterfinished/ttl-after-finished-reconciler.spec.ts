import 'reflect-metadata';
import type { Job } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { garbageCollectorController } from '../garbage-collector';
import { ttlAfterFinishedController } from './index';

let env: TestEnvironment;
let running: RunningControllers;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [ttlAfterFinishedController, garbageCollectorController], ['--concurrent-ttl-after-finished-syncs=2']);
  await env.client.namespaces.create({ metadata: { name: 'ttl' } });
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

function job(name: string, ttl?: number): Job {
  return {
    metadata: { name, namespace: 'ttl' },
    spec: { ttlSecondsAfterFinished: ttl, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

/** Marks the Job finished `agoMs` ago, as the job controller would. */
async function complete(created: Job, agoMs = 0): Promise<void> {
  const at = new Date(Date.now() - agoMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition = (type: string) => ({
    type,
    status: 'True' as const,
    reason: 'CompletionsReached',
    message: 'Reached expected number of succeeded pods',
    lastTransitionTime: at,
    lastProbeTime: at,
  });
  await env.client.jobs.updateStatus(
    { ...created, status: { startTime: at, completionTime: at, succeeded: 1, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] } },
    { namespace: 'ttl' },
  );
}

async function exists(name: string): Promise<boolean> {
  try {
    await env.client.jobs.get(name, { namespace: 'ttl' });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

describe('the TTL-after-finished controller', () => {
  it('deletes a finished Job once its TTL has passed, and keeps one without a TTL or not finished', async () => {
    const expiring = await env.client.jobs.create(job('expiring', 1));
    const keep = await env.client.jobs.create(job('no-ttl'));
    await env.client.jobs.create(job('running', 0));
    await complete(keep);
    await complete(expiring);
    // Deleted in the foreground: the garbage collector removes the Job once its dependents are gone.
    await eventually(async () => expect(await exists('expiring')).toBe(false), 10_000);
    expect(await exists('no-ttl')).toBe(true);
    expect(await exists('running')).toBe(true);
  });

  it('deletes at once a Job that finished longer ago than its TTL, in the foreground', async () => {
    const created = await env.client.jobs.create(job('old', 60));
    // A dependent that blocks its owner's deletion and is itself held by a finalizer: the garbage
    // collector keeps the Job's foregroundDeletion finalizer until the dependent is gone, so the test
    // sees how the Job was deleted whatever the collector's timing.
    await env.client.configMaps.create({
      metadata: {
        name: 'old-dependent',
        namespace: 'ttl',
        finalizers: ['example.com/hold'],
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'old', uid: created.metadata?.uid ?? '', blockOwnerDeletion: true }],
      },
    });
    await complete(created, 120_000);
    const held = await eventually(async () => {
      const current = await env.client.jobs.get('old', { namespace: 'ttl' });
      expect(current.metadata?.deletionTimestamp).toBeDefined();
      return current;
    });
    expect(held.metadata?.finalizers).toContain('foregroundDeletion');
    await env.client.configMaps.patch('old-dependent', { metadata: { finalizers: null } } as never, 'merge', { namespace: 'ttl' });
    await eventually(async () => expect(await exists('old')).toBe(false), 10_000);
  });

  it('waits for a TTL made longer before it expired', async () => {
    const created = await env.client.jobs.create(job('extended', 1));
    await env.client.jobs.patch('extended', { spec: { ttlSecondsAfterFinished: 3600 } }, 'merge', { namespace: 'ttl' });
    await complete(await env.client.jobs.get('extended', { namespace: 'ttl' }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await exists('extended')).toBe(true);
    expect(created.metadata?.uid).toBeDefined();
  });
});
