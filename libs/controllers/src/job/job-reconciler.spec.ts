import 'reflect-metadata';
import type { Job, JobCondition, Pod } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { jobController } from './index';

let env: TestEnvironment;
let running: RunningControllers;
let nsCount = 0;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [jobController]);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

async function newNamespace(): Promise<string> {
  const name = `job-test-${++nsCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

function job(namespace: string, name: string, spec: Partial<Job['spec']> = {}): Job {
  return {
    metadata: { name, namespace },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }, ...spec },
  };
}

async function podsOf(j: Job): Promise<Pod[]> {
  const list = await env.client.pods.listAll({ namespace: j.metadata!.namespace });
  return list.items.filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === j.metadata!.uid));
}

async function getJob(j: Job): Promise<Job> {
  return env.client.jobs.get(j.metadata!.name!, { namespace: j.metadata!.namespace });
}

function condition(j: Job, type: string): JobCondition | undefined {
  return j.status?.conditions?.find((c) => c.type === type);
}

/** What a node agent reports of a pod that ended with `exitCode`. */
async function finish(pod: Pod, exitCode: number): Promise<void> {
  const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await env.client.pods.patchStatus(
    pod.metadata!.name!,
    {
      status: {
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { terminated: { exitCode, finishedAt: at } } }],
      },
    },
    'merge',
    { namespace: pod.metadata!.namespace },
  );
}

async function activePods(j: Job, count: number): Promise<Pod[]> {
  return eventually(async () => {
    const pods = (await podsOf(j)).filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    expect(pods).toHaveLength(count);
    return pods;
  });
}

describe('the Job controller', () => {
  it('runs completions pods at most parallelism at a time, counts each once, and completes', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'count', { completions: 3, parallelism: 2 }));
    const first = await activePods(created, 2);
    for (const pod of first) {
      expect(pod.metadata?.name).toMatch(/^count-[a-z0-9]{5}$/);
      expect(pod.metadata?.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
      expect(pod.metadata?.labels).toMatchObject({
        'batch.kubernetes.io/job-name': 'count',
        'job-name': 'count',
        'batch.kubernetes.io/controller-uid': created.metadata!.uid,
        'controller-uid': created.metadata!.uid,
      });
      expect(pod.metadata?.ownerReferences).toEqual([
        { apiVersion: 'batch/v1', kind: 'Job', name: 'count', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    await eventually(async () => expect((await getJob(created)).status).toMatchObject({ active: 2, ready: 0, terminating: 0 }));
    await finish(first[0], 0);
    const second = await activePods(created, 2);
    await Promise.all(second.map((p) => finish(p, 0)));
    const done = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Complete')?.status).toBe('True');
      return current;
    });
    expect(condition(done, 'SuccessCriteriaMet')).toMatchObject({ status: 'True', reason: 'CompletionsReached' });
    expect(condition(done, 'Complete')).toMatchObject({ reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
    expect(done.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(done.status?.active).toBeUndefined();
    expect(done.status?.completionTime).toBeDefined();
    expect(done.status?.startTime).toBeDefined();
    for (const pod of await podsOf(created)) expect(pod.metadata?.finalizers ?? []).toEqual([]);
    const events = await env.client.events.listAll({ namespace: ns });
    const reasons = events.items.filter((e) => e.involvedObject?.name === 'count').map((e) => e.reason);
    expect(reasons.filter((r) => r === 'SuccessfulCreate')).toHaveLength(3);
    expect(reasons).toContain('Completed');
  });

  it('gives each pod of an Indexed Job its index, once, and lists the completed indexes', async () => {
    const ns = await newNamespace();
    const spec = job(ns, 'idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' });
    spec.spec.template.spec.subdomain = 'workers';
    const created = await env.client.jobs.create(spec);
    const pods = await activePods(created, 3);
    const byIndex = new Map(pods.map((p) => [p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], p]));
    expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
    for (const [index, pod] of byIndex) {
      expect(pod.metadata?.name).toMatch(new RegExp(`^idx-${index}-[a-z0-9]{5}$`));
      expect(pod.metadata?.labels?.['batch.kubernetes.io/job-completion-index']).toBe(index);
      expect(pod.spec.hostname).toBe(`idx-${index}`);
      expect(pod.spec.subdomain).toBe('workers');
      expect(pod.spec.containers[0].env).toEqual([
        {
          name: 'JOB_COMPLETION_INDEX',
          valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
        },
      ]);
    }
    await finish(byIndex.get('1')!, 0);
    await eventually(async () => expect((await getJob(created)).status?.completedIndexes).toBe('1'));
    await finish(byIndex.get('0')!, 0);
    await finish(byIndex.get('2')!, 0);
    await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Complete')?.status).toBe('True');
      expect(current.status).toMatchObject({ completedIndexes: '0-2', succeeded: 3 });
    });
  });

  it('fails at the backoff limit with FailureTarget first, then Failed', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'failing', { backoffLimit: 0 }));
    const [pod] = await activePods(created, 1);
    await finish(pod, 1);
    const failed = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Failed')?.status).toBe('True');
      return current;
    });
    expect(condition(failed, 'FailureTarget')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(condition(failed, 'Failed')).toMatchObject({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(failed.status).toMatchObject({ failed: 1, uncountedTerminatedPods: {} });
    expect(failed.status?.completionTime).toBeUndefined();
    const events = await env.client.events.listAll({ namespace: ns });
    expect(events.items.some((e) => e.reason === 'BackoffLimitExceeded' && e.type === 'Warning')).toBe(true);
  });

  it('fails at once on a FailJob rule of its pod failure policy, and does not count what Ignore matches', async () => {
    const ns = await newNamespace();
    const policy = {
      rules: [
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } },
        { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } },
      ],
    };
    const ignoring = await env.client.jobs.create(job(ns, 'ignoring', { backoffLimit: 0, podFailurePolicy: policy }));
    const [ignored] = await activePods(ignoring, 1);
    await finish(ignored, 7);
    await eventually(async () => {
      const [pod] = (await podsOf(ignoring)).filter((p) => p.metadata?.uid === ignored.metadata?.uid);
      expect(pod.metadata?.finalizers ?? []).toEqual([]);
    });
    const afterIgnore = await getJob(ignoring);
    expect(afterIgnore.status?.failed).toBeUndefined();
    expect(afterIgnore.status?.conditions ?? []).toEqual([]);

    const created = await env.client.jobs.create(job(ns, 'policy', { backoffLimit: 6, podFailurePolicy: policy }));
    const [pod] = await activePods(created, 1);
    await finish(pod, 42);
    const failed = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Failed')?.status).toBe('True');
      return current;
    });
    const message = `Container c for pod ${ns}/${pod.metadata!.name} failed with exit code 42 matching FailJob rule at index 1`;
    expect(condition(failed, 'FailureTarget')).toMatchObject({ reason: 'PodFailurePolicy', message });
    expect(condition(failed, 'Failed')).toMatchObject({ reason: 'PodFailurePolicy', message });
    expect(failed.status?.failed).toBe(1);
  });

  it('starts no pod while suspended, deletes them on suspension, and resets startTime on resume', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'paused', { suspend: true, parallelism: 2, completions: 4 }));
    await eventually(async () => expect(condition(await getJob(created), 'Suspended')).toMatchObject({ status: 'True', reason: 'JobSuspended' }));
    expect(await podsOf(created)).toHaveLength(0);
    expect((await getJob(created)).status?.startTime).toBeUndefined();
    await env.client.jobs.patch('paused', { spec: { suspend: false } }, 'merge', { namespace: ns });
    await activePods(created, 2);
    await eventually(async () => {
      const resumed = await getJob(created);
      expect(condition(resumed, 'Suspended')).toMatchObject({ status: 'False', reason: 'JobResumed' });
      expect(resumed.status?.startTime).toBeDefined();
    });
    await env.client.jobs.patch('paused', { spec: { suspend: true } }, 'merge', { namespace: ns });
    await eventually(async () => {
      expect(await podsOf(created)).toHaveLength(0);
      const current = await getJob(created);
      expect(condition(current, 'Suspended')?.status).toBe('True');
      expect(current.status?.active).toBeUndefined();
      expect(current.status?.startTime).toBeUndefined();
    });
  });

  it('fails a Job past its active deadline, stopping its pods', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'deadline', { activeDeadlineSeconds: 1 }));
    await activePods(created, 1);
    const failed = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Failed')?.status).toBe('True');
      return current;
    }, 10_000);
    expect(condition(failed, 'Failed')).toMatchObject({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    expect(failed.status?.failed).toBe(1);
    await eventually(async () => expect(await podsOf(created)).toHaveLength(0));
  });

  it('leaves a Job another controller manages alone', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'foreign', { managedBy: 'example.com/other' }));
    const control = await env.client.jobs.create(job(ns, 'own'));
    await activePods(control, 1);
    expect(await podsOf(created)).toHaveLength(0);
    expect((await getJob(created)).status ?? {}).toEqual({});
  });

  it('ends an Indexed Job early on its success policy', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(
      job(ns, 'leader', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } }),
    );
    const pods = await activePods(created, 3);
    const leader = pods.find((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === '0')!;
    await finish(leader, 0);
    const done = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Complete')?.status).toBe('True');
      return current;
    });
    expect(condition(done, 'SuccessCriteriaMet')).toMatchObject({ reason: 'SuccessPolicy', message: 'Matched rules at index 0' });
    expect(done.status).toMatchObject({ completedIndexes: '0', succeeded: 1 });
    await eventually(async () => expect(await podsOf(created)).toHaveLength(1));
  });

  it('fails an index past backoffLimitPerIndex and the Job at maxFailedIndexes', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(
      job(ns, 'per-index', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 0 }),
    );
    const pods = await activePods(created, 2);
    for (const pod of pods) expect(pod.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count']).toBe('0');
    const one = pods.find((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === '1')!;
    await finish(one, 3);
    const failed = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Failed')?.status).toBe('True');
      return current;
    });
    expect(condition(failed, 'Failed')).toMatchObject({ reason: 'MaxFailedIndexesExceeded' });
    expect(failed.status?.failedIndexes).toBe('1');
  });
  it('scales an elastic Indexed Job: indexes past the new completions go, new ones start', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'elastic', { completions: 4, parallelism: 4, completionMode: 'Indexed' }));
    await activePods(created, 4);
    const indexes = async () => (await activePods(created, 2)).map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
    await env.client.jobs.patch('elastic', { spec: { completions: 2, parallelism: 2 } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await indexes()).toEqual(['0', '1']));
    const [zero] = (await activePods(created, 2)).filter((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === '0');
    await finish(zero, 0);
    await env.client.jobs.patch('elastic', { spec: { completions: 3, parallelism: 3 } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const active = (await activePods(created, 2)).map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
      expect(active).toEqual(['1', '2']);
      expect((await getJob(created)).status?.completedIndexes).toBe('0');
    });
  });
  it('with podReplacementPolicy Failed, replaces a pod only once it has ended, counting it as terminating meanwhile', async () => {
    const ns = await newNamespace();
    const spec = job(ns, 'patient', { podReplacementPolicy: 'Failed', backoffLimit: 3 });
    // Bound to a node: its deletion waits for a node agent (there is none), so the pod stays terminating.
    spec.spec.template.spec.nodeName = 'node-1';
    const created = await env.client.jobs.create(spec);
    const [first] = await activePods(created, 1);
    await env.client.pods.delete(first.metadata!.name!, { namespace: ns });
    await eventually(async () => expect((await getJob(created)).status).toMatchObject({ terminating: 1 }));
    expect(await podsOf(created)).toHaveLength(1);
    expect((await getJob(created)).status?.active).toBeUndefined();
  });
  it('releases the finalizers of the pods of a Job that is deleted', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(job(ns, 'doomed', { parallelism: 2, completions: 2 }));
    await activePods(created, 2);
    await env.client.jobs.delete('doomed', { namespace: ns, propagationPolicy: 'Background' });
    await eventually(async () => {
      const pods = await podsOf(created);
      expect(pods).toHaveLength(2);
      for (const pod of pods) expect(pod.metadata?.finalizers ?? []).toEqual([]);
    });
  });

  it('fails only the index a FailIndex rule matches, and the Job once every index has ended', async () => {
    const ns = await newNamespace();
    const created = await env.client.jobs.create(
      job(ns, 'fail-index', {
        completions: 2,
        parallelism: 2,
        completionMode: 'Indexed',
        backoffLimitPerIndex: 3,
        podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [9] } }] },
      }),
    );
    const pods = await activePods(created, 2);
    const byIndex = (i: string) => pods.find((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === i)!;
    await finish(byIndex('0'), 9);
    await eventually(async () => expect((await getJob(created)).status?.failedIndexes).toBe('0'));
    expect(condition(await getJob(created), 'FailureTarget')).toBeUndefined();
    await finish(byIndex('1'), 0);
    const failed = await eventually(async () => {
      const current = await getJob(created);
      expect(condition(current, 'Failed')?.status).toBe('True');
      return current;
    });
    expect(condition(failed, 'Failed')).toMatchObject({ reason: 'FailedIndexes', message: 'Job has failed indexes' });
    expect(failed.status).toMatchObject({ failedIndexes: '0', completedIndexes: '1', succeeded: 1, failed: 1 });
  });
});
