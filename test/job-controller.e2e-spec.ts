import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl, runKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Job controller tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

const IMAGE = 'busybox:1.36';

interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

function jobManifest(name: string, spec: Record<string, unknown>, command: string[], podSpec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: {
        spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: IMAGE, command }], ...podSpec },
      },
    },
  };
}

describeWithRuntime('the Job and TTL-after-finished controllers with kubectl on a real node', () => {
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let scheduler: SchedulerProcess;
  const env = () => cluster.env();

  const getJob = async (name: string): Promise<{ status?: { conditions?: JobCondition[] } & Record<string, unknown>; spec: Record<string, unknown> }> =>
    JSON.parse((await kubectl(['get', 'job', name, '-o', 'json'], env())).stdout);
  const condition = (job: { status?: { conditions?: JobCondition[] } }, type: string) => job.status?.conditions?.find((c) => c.type === type);
  const podsOf = async (job: string): Promise<any[]> =>
    JSON.parse((await kubectl(['get', 'pods', '-l', `batch.kubernetes.io/job-name=${job}`, '-o', 'json'], env())).stdout).items;

  beforeAll(async () => {
    cluster = await startNodeCluster();
    [controllers, scheduler] = await Promise.all([
      startControllerManagerProcess(cluster.apiserver, ['--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics']),
      startSchedulerProcess(cluster.apiserver),
    ]);
    // Every Job starts at once, so that their pods run side by side and the file takes the time of the longest.
    await cluster.apply(
      jobManifest('indexed', { completions: 5, parallelism: 2, completionMode: 'Indexed' }, [
        'sh',
        '-c',
        'echo "index=$JOB_COMPLETION_INDEX host=$(hostname)"',
      ]),
      jobManifest('failing', { backoffLimit: 1 }, ['sh', '-c', 'exit 1']),
      jobManifest(
        'policy',
        { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] } },
        ['sh', '-c', 'exit 42'],
      ),
      jobManifest('paused', { suspend: true }, ['sh', '-c', 'echo resumed']),
      jobManifest('short-lived', { ttlSecondsAfterFinished: 2 }, ['sh', '-c', 'echo done']),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([controllers?.stop(), scheduler?.stop()]);
    await cluster?.stop();
  }, 60_000);

  it('an Indexed Job of 5 at parallelism 2 completes, each pod seeing its own index and hostname', async () => {
    await kubectl(['wait', '--for=condition=complete', 'job/indexed', '--timeout=90s'], env(), 100_000);
    const job = await getJob('indexed');
    expect(job.status).toMatchObject({ succeeded: 5, completedIndexes: '0-4', ready: 0, terminating: 0 });
    expect(condition(job, 'SuccessCriteriaMet')).toMatchObject({ status: 'True', reason: 'CompletionsReached' });
    const pods = await podsOf('indexed');
    expect(pods).toHaveLength(5);
    const seen: string[] = [];
    for (const pod of pods) {
      const index = pod.metadata.annotations['batch.kubernetes.io/job-completion-index'];
      expect(pod.metadata.labels['batch.kubernetes.io/job-completion-index']).toBe(index);
      expect(pod.metadata.finalizers ?? []).toEqual([]);
      const logs = (await kubectl(['logs', pod.metadata.name], env())).stdout.trim();
      expect(logs).toBe(`index=${index} host=indexed-${index}`);
      seen.push(index);
    }
    expect(seen.sort()).toEqual(['0', '1', '2', '3', '4']);
  }, 110_000);

  it('a failing Job is retried after a backoff and stops at backoffLimit with Failed/BackoffLimitExceeded', async () => {
    await kubectl(['wait', '--for=condition=failed', 'job/failing', '--timeout=90s'], env(), 100_000);
    const job = await getJob('failing');
    expect(condition(job, 'FailureTarget')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(condition(job, 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(job.status).toMatchObject({ failed: 2 });
    const pods = (await podsOf('failing')).sort((a, b) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp));
    expect(pods).toHaveLength(2);
    // The replacement waited out the 10 s backoff after the first failure.
    const firstEnded = Date.parse(pods[0].status.containerStatuses[0].state.terminated.finishedAt);
    expect(Date.parse(pods[1].metadata.creationTimestamp) - firstEnded).toBeGreaterThanOrEqual(9_000);
    const events = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.name=failing', '-o', 'json'], env())).stdout;
    expect(JSON.parse(events).items.map((e: { reason: string }) => e.reason)).toEqual(expect.arrayContaining(['SuccessfulCreate', 'BackoffLimitExceeded']));
  }, 110_000);

  it('a pod failure policy on exit code 42 fails the Job at once: FailureTarget, then Failed', async () => {
    await kubectl(['wait', '--for=condition=FailureTarget', 'job/policy', '--timeout=60s'], env(), 70_000);
    await kubectl(['wait', '--for=condition=failed', 'job/policy', '--timeout=60s'], env(), 70_000);
    const job = await getJob('policy');
    const target = condition(job, 'FailureTarget');
    const failed = condition(job, 'Failed');
    expect(target).toMatchObject({ status: 'True', reason: 'PodFailurePolicy' });
    expect(target?.message).toMatch(/^Container main for pod default\/policy-[a-z0-9]{5} failed with exit code 42 matching FailJob rule at index 0$/);
    expect(failed).toMatchObject({ status: 'True', reason: 'PodFailurePolicy', message: target?.message });
    expect(Date.parse(failed!.lastTransitionTime!)).toBeGreaterThanOrEqual(Date.parse(target!.lastTransitionTime!));
    // At once: one pod, no retry, though backoffLimit allowed six.
    expect(await podsOf('policy')).toHaveLength(1);
    expect(job.status).toMatchObject({ failed: 1 });
  }, 80_000);

  it('a suspended Job starts no pod until it is resumed', async () => {
    await kubectl(['wait', '--for=condition=suspended', 'job/paused', '--timeout=30s'], env(), 40_000);
    const suspended = await getJob('paused');
    expect(condition(suspended, 'Suspended')).toMatchObject({ status: 'True', reason: 'JobSuspended', message: 'Job suspended' });
    expect(suspended.status?.startTime).toBeUndefined();
    expect(await podsOf('paused')).toHaveLength(0);
    await kubectl(['patch', 'job', 'paused', '--type=merge', '-p', '{"spec":{"suspend":false}}'], env());
    await kubectl(['wait', '--for=condition=complete', 'job/paused', '--timeout=60s'], env(), 70_000);
    const done = await getJob('paused');
    expect(condition(done, 'Suspended')).toMatchObject({ status: 'False', reason: 'JobResumed' });
    expect(done.status?.startTime).toBeDefined();
    expect((await kubectl(['logs', 'job/paused'], env())).stdout.trim()).toBe('resumed');
  }, 110_000);

  it('a finished Job with ttlSecondsAfterFinished is deleted, with its pods', async () => {
    await eventually(
      async () => {
        const result = await runKubectl(['get', 'job', 'short-lived'], env());
        expect(result.stderr).toContain('NotFound');
      },
      60_000,
      500,
    );
    await eventually(async () => expect(await podsOf('short-lived')).toHaveLength(0), 30_000, 500);
  }, 100_000);

  it('kubectl create job runs a command to completion', async () => {
    await kubectl(['create', 'job', 'made', `--image=${IMAGE}`, '--', 'sh', '-c', 'echo made by kubectl'], env());
    await kubectl(['wait', '--for=condition=complete', 'job/made', '--timeout=60s'], env(), 70_000);
    expect((await kubectl(['logs', 'job/made'], env())).stdout.trim()).toBe('made by kubectl');
    const table = (await kubectl(['get', 'job', 'made'], env())).stdout;
    expect(table).toMatch(/made\s+Complete\s+1\/1/);
  }, 80_000);

  it("counts syncs, finished Jobs by reason, finished pods and pod failure policy actions under Kubernetes' metric names", async () => {
    const { body } = await controllers.get('/metrics');
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(body)?.[1] ?? NaN);
    expect(value('job_controller_jobs_finished_total{completion_mode="Indexed",result="succeeded",reason="CompletionsReached"}')).toBeGreaterThanOrEqual(1);
    expect(value('job_controller_jobs_finished_total{completion_mode="NonIndexed",result="failed",reason="BackoffLimitExceeded"}')).toBe(1);
    expect(value('job_controller_jobs_finished_total{completion_mode="NonIndexed",result="failed",reason="PodFailurePolicy"}')).toBe(1);
    expect(value('job_controller_pod_failures_handled_by_failure_policy_total{action="FailJob"}')).toBe(1);
    expect(value('job_controller_job_pods_finished_total{completion_mode="Indexed",result="succeeded"}')).toBeGreaterThanOrEqual(5);
    expect(value('job_controller_job_pods_finished_total{completion_mode="NonIndexed",result="failed"}')).toBeGreaterThanOrEqual(3);
    expect(value('job_controller_job_syncs_total{completion_mode="NonIndexed",result="success",action="pods_created"}')).toBeGreaterThanOrEqual(1);
    expect(body).toMatch(/^job_controller_job_sync_duration_seconds_bucket\{le="0\.004",completion_mode="Indexed",result="success",action="tracking"\} \d+$/m);
  }, 20_000);
});
