// The cronjob controller against the API server and controller manager processes, with kubectl. Only
// the cronjob controller runs: no Job controller finishes a Job here, so a Job stays active until
// the test writes its status through the status subresource, as the Job controller would. Runs
// missed while the controller "was away" are made due at once by writing the CronJob's
// lastScheduleTime back, so that only one test waits for a real minute boundary, and it waits
// beside the others.
import type { CronJob, Event, Job } from '@svc/api';
import { Client, loadClientConfig } from '@svc/client';
import { StatusError } from '@svc/machinery';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl as runKubectlOrFail, runKubectl } from './support/kubectl-run';

jest.setTimeout(120_000);

const MINUTE = 60_000;
const ns = 'cron-e2e';
const SCHEDULED_AT = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

let apiserver: ApiServerProcess;
let cm: ControllerManagerProcess;
let client: Client;

async function kubectl(...args: string[]): Promise<string> {
  return (await runKubectlOrFail(args, apiserver.kubectlEnv, 30_000)).stdout;
}

const cronJobs = () => client.cronJobs.inNamespace(ns);
const jobs = () => client.jobs.inNamespace(ns);

beforeAll(async () => {
  apiserver = await startApiServerProcess();
  // The cronjob controller alone: the Jobs it makes stay active until a test finishes them.
  cm = await startControllerManagerProcess(apiserver, ['--controllers=cronjob', '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics']);
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  await client.namespaces.create({ metadata: { name: ns } });
  await kubectl('create', 'cronjob', 'tick', '-n', ns, '--image=busybox', '--schedule=*/1 * * * *', '--', 'date');
});

afterAll(async () => {
  client?.close();
  await cm?.stop();
  await apiserver?.stop();
});

/** An hourly schedule whose latest run was `minutesAgo` minutes ago (at a whole minute), in UTC. */
function hourlyRanAgo(minutesAgo: number): { schedule: string; lastRunMs: number } {
  const lastRunMs = Math.floor((Date.now() - minutesAgo * MINUTE) / MINUTE) * MINUTE;
  return { schedule: `${new Date(lastRunMs).getUTCMinutes()} * * * *`, lastRunMs };
}

function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A suspended CronJob in UTC: nothing runs until the test resumes it. */
async function suspendedCronJob(name: string, schedule: string, spec: Partial<CronJob['spec']> = {}): Promise<CronJob> {
  return cronJobs().create({
    metadata: { name },
    spec: {
      schedule,
      timeZone: 'UTC',
      suspend: true,
      jobTemplate: {
        metadata: { labels: { app: name }, annotations: { team: 'batch' } },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['true'] }] } } },
      },
      ...spec,
    },
  });
}

/** As if the controller had last started a run at `ms` (it was away since). */
async function lastScheduledAt(name: string, ms: number): Promise<void> {
  await cronJobs().patchStatus(name, { status: { lastScheduleTime: metaTime(ms) } }, 'merge');
}

async function resume(name: string): Promise<void> {
  await cronJobs().patch(name, { spec: { suspend: false } }, 'merge');
}

async function jobsOf(cronJob: string): Promise<Job[]> {
  const all = (await jobs().list()).items;
  return all.filter((j) => j.metadata?.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === cronJob));
}

async function eventsOf(name: string): Promise<Array<Pick<Event, 'type' | 'reason' | 'message'>>> {
  const events = (await client.events.list({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items;
  return events.map((e) => ({ type: e.type, reason: e.reason, message: e.message }));
}

/** Ends a Job as the Job controller would: Complete (or Failed) with its times. */
async function finish(name: string, outcome: 'Complete' | 'Failed', startMs: number): Promise<void> {
  const now = metaTime(Math.max(Date.now(), startMs + 1000));
  const conditions =
    outcome === 'Complete'
      ? [
          {
            type: 'SuccessCriteriaMet',
            status: 'True' as const,
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
          {
            type: 'Complete',
            status: 'True' as const,
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
        ]
      : [
          {
            type: 'FailureTarget',
            status: 'True' as const,
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
          {
            type: 'Failed',
            status: 'True' as const,
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
        ];
  const status: Job['status'] = {
    startTime: metaTime(startMs),
    conditions,
    ...(outcome === 'Complete' ? { succeeded: 1, completionTime: now } : { failed: 1 }),
  };
  await jobs().patchStatus(name, { status }, 'merge');
}

describe('the cronjob controller', () => {
  it('kubectl create job --from=cronjob/x makes a Job of the template that the CronJob controls, and the controller calls it unexpected', async () => {
    const job = JSON.parse(await kubectl('create', 'job', 'by-hand', '-n', ns, '--from=cronjob/tick', '-o', 'json')) as Job;
    const tick = await cronJobs().get('tick');
    expect(job.metadata?.annotations).toEqual({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(job.metadata?.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: tick.metadata?.uid, controller: true }]);
    expect(job.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'tick', image: 'busybox', command: ['date'] })]);
    // Not one of its runs: not in status.active, and reported as Kubernetes reports it.
    await eventually(
      async () =>
        expect(await eventsOf('tick')).toContainEqual({
          type: 'Warning',
          reason: 'UnexpectedJob',
          message: 'Saw a job that the controller did not create or forgot: by-hand',
        }),
      10_000,
      100,
    );
    expect((await cronJobs().get('tick')).status?.active ?? []).toEqual([]);
    await jobs().delete('by-hand', { propagationPolicy: 'Background' });
  });

  it('starts nothing while suspended, still keeps its history limits, and starts only the latest missed run once resumed', async () => {
    const { schedule, lastRunMs } = hourlyRanAgo(2);
    await suspendedCronJob('hist', schedule, { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 });
    // Three runs missed while the controller was away.
    await lastScheduledAt('hist', lastRunMs - 3 * 60 * MINUTE);
    for (const name of ['hist-ok-1', 'hist-ok-2', 'hist-bad-1', 'hist-bad-2']) await kubectl('create', 'job', name, '-n', ns, '--from=cronjob/hist');
    const start = Date.now() - 10 * MINUTE;
    await finish('hist-ok-1', 'Complete', start);
    await finish('hist-bad-1', 'Failed', start + 1000);
    await finish('hist-ok-2', 'Complete', start + 2000);
    await finish('hist-bad-2', 'Failed', start + 3000);
    // The oldest finished Job of each kind beyond its limit goes.
    await eventually(async () => expect((await jobsOf('hist')).map((j) => j.metadata?.name).sort()).toEqual(['hist-bad-2', 'hist-ok-2']), 15_000, 100);
    const events = await eventsOf('hist');
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'Normal', reason: 'SuccessfulDelete', message: 'Deleted job hist-ok-1' },
        { type: 'Normal', reason: 'SuccessfulDelete', message: 'Deleted job hist-bad-1' },
      ]),
    );
    const status = (await cronJobs().get('hist')).status;
    expect(status?.lastSuccessfulTime).toBe((await jobs().get('hist-ok-2')).status?.completionTime);
    // Suspended: the run that is due was not started.
    expect(status?.lastScheduleTime).toBe(metaTime(lastRunMs - 3 * 60 * MINUTE));
    expect(events.some((e) => e.reason === 'SuccessfulCreate')).toBe(false);

    await resume('hist');
    const name = `hist-${lastRunMs / MINUTE}`;
    const job = await eventually(() => jobs().get(name), 15_000, 100);
    expect(job.metadata?.annotations).toEqual({ team: 'batch', [SCHEDULED_AT]: metaTime(lastRunMs) });
    expect(job.metadata?.labels).toMatchObject({ app: 'hist' });
    expect(job.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hist', controller: true, blockOwnerDeletion: true }),
    ]);
    // One Job for the three missed runs.
    expect((await jobsOf('hist')).map((j) => j.metadata?.name).sort()).toEqual(['hist-bad-2', name, 'hist-ok-2'].sort());
    await eventually(async () => {
      const resumed = (await cronJobs().get('hist')).status;
      expect(resumed?.lastScheduleTime).toBe(metaTime(lastRunMs));
      expect(resumed?.active).toEqual([
        { kind: 'Job', namespace: ns, name, uid: job.metadata?.uid, apiVersion: 'batch/v1', resourceVersion: expect.any(String) },
      ]);
    });
    await eventually(
      async () => expect(await eventsOf('hist')).toContainEqual({ type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${name}` }),
      10_000,
      100,
    );
  });

  it("after more than 100 missed runs, warns TooManyMissedTimes and starts only the latest, read in the CronJob's time zone", async () => {
    const { lastRunMs } = hourlyRanAgo(2);
    // Asia/Kolkata is 5 h 30 min ahead of UTC: its minute is half an hour off.
    const kolkataMinute = (new Date(lastRunMs).getUTCMinutes() + 30) % 60;
    await suspendedCronJob('storm', `${kolkataMinute} * * * *`, { timeZone: 'Asia/Kolkata' });
    await lastScheduledAt('storm', lastRunMs - 300 * 60 * MINUTE);
    await resume('storm');
    const name = `storm-${lastRunMs / MINUTE}`;
    await eventually(
      async () =>
        expect(await eventsOf('storm')).toEqual(
          expect.arrayContaining([
            {
              type: 'Warning',
              reason: 'TooManyMissedTimes',
              message: 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
            },
            { type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${name}` },
          ]),
        ),
      15_000,
      100,
    );
    const made = await jobsOf('storm');
    expect(made.map((j) => j.metadata?.name)).toEqual([name]);
    const local = new Date(lastRunMs + 330 * MINUTE).toISOString().slice(0, 19);
    expect(made[0].metadata?.annotations?.[SCHEDULED_AT]).toBe(`${local}+05:30`);
  });

  it('startingDeadlineSeconds: a run later than the deadline is skipped, one within it starts', async () => {
    const { schedule, lastRunMs } = hourlyRanAgo(2);
    await suspendedCronJob('late', schedule, { startingDeadlineSeconds: 30 });
    await suspendedCronJob('in-time', schedule, { startingDeadlineSeconds: 600 });
    for (const name of ['late', 'in-time']) {
      await lastScheduledAt(name, lastRunMs - 3 * 60 * MINUTE);
      await resume(name);
    }
    await eventually(async () => expect((await jobsOf('in-time')).map((j) => j.metadata?.name)).toEqual([`in-time-${lastRunMs / MINUTE}`]), 15_000, 100);
    // A sync after the resume, seen by the active Job it drops (written after its decision to start nothing).
    await cronJobs().patchStatus(
      'late',
      { status: { active: [{ kind: 'Job', namespace: ns, name: 'late-1', uid: 'no-such-job', apiVersion: 'batch/v1' }] } },
      'merge',
    );
    await eventually(
      async () => expect(await eventsOf('late')).toContainEqual({ type: 'Normal', reason: 'MissingJob', message: 'Active job went missing: late-1' }),
      15_000,
      100,
    );
    expect(await jobsOf('late')).toEqual([]);
    expect((await cronJobs().get('late')).status?.lastScheduleTime).toBe(metaTime(lastRunMs - 3 * 60 * MINUTE));
  });

  it('drops an active Job that went missing from status.active', async () => {
    await suspendedCronJob('lost', '0 0 1 1 *');
    await cronJobs().patchStatus(
      'lost',
      { status: { active: [{ kind: 'Job', namespace: ns, name: 'lost-1', uid: 'a-uid-no-job-has', apiVersion: 'batch/v1' }] } },
      'merge',
    );
    await eventually(
      async () => {
        expect((await cronJobs().get('lost')).status?.active ?? []).toEqual([]);
        expect(await eventsOf('lost')).toContainEqual({ type: 'Normal', reason: 'MissingJob', message: 'Active job went missing: lost-1' });
      },
      15_000,
      100,
    );
  });

  /** A CronJob whose run of three minutes ago is active, and whose run of a minute ago is due once it resumes. */
  async function withActiveRun(name: string, concurrencyPolicy: 'Forbid' | 'Replace'): Promise<{ firstJob: Job; secondRunMs: number }> {
    const first = hourlyRanAgo(3);
    await suspendedCronJob(name, first.schedule, { concurrencyPolicy });
    await lastScheduledAt(name, first.lastRunMs - 60 * MINUTE);
    await resume(name);
    const firstJob = await eventually(() => jobs().get(`${name}-${first.lastRunMs / MINUTE}`), 15_000, 100);
    await eventually(async () => expect((await cronJobs().get(name)).status?.active?.map((r) => r.name)).toEqual([firstJob.metadata?.name]), 10_000, 100);
    // A second run comes due: the schedule now also fires a minute ago. Kubernetes syncs a CronJob at
    // once when it is resumed (a schedule change alone waits for its next time), hence the suspension.
    const second = hourlyRanAgo(1);
    await cronJobs().patch(name, { spec: { suspend: true } }, 'merge');
    await cronJobs().patch(
      name,
      { spec: { schedule: `${new Date(first.lastRunMs).getUTCMinutes()},${new Date(second.lastRunMs).getUTCMinutes()} * * * *` } },
      'merge',
    );
    await resume(name);
    return { firstJob, secondRunMs: second.lastRunMs };
  }

  it('Forbid: skips a run while the last one is active, and starts it once that one completes', async () => {
    const { firstJob, secondRunMs } = await withActiveRun('forbid', 'Forbid');
    await eventually(
      async () =>
        expect(await eventsOf('forbid')).toContainEqual({
          type: 'Normal',
          reason: 'JobAlreadyActive',
          message: 'Not starting job because prior execution is running and concurrency policy is Forbid',
        }),
      15_000,
      100,
    );
    expect((await jobsOf('forbid')).map((j) => j.metadata?.name)).toEqual([firstJob.metadata?.name]);
    expect((await cronJobs().get('forbid')).status?.active?.map((r) => r.name)).toEqual([firstJob.metadata?.name]);

    // Without a starting deadline the skipped run is still due: it starts as soon as the first one ends.
    await finish(firstJob.metadata?.name ?? '', 'Complete', Date.parse(firstJob.metadata?.creationTimestamp ?? ''));
    const second = `forbid-${secondRunMs / MINUTE}`;
    await eventually(
      async () => {
        const status = (await cronJobs().get('forbid')).status;
        expect(status?.active?.map((r) => r.name)).toEqual([second]);
        expect(status?.lastScheduleTime).toBe(metaTime(secondRunMs));
        expect(status?.lastSuccessfulTime).toBe((await jobs().get(firstJob.metadata?.name ?? '')).status?.completionTime);
      },
      15_000,
      100,
    );
    await eventually(
      async () =>
        expect(await eventsOf('forbid')).toEqual(
          expect.arrayContaining([
            { type: 'Normal', reason: 'SawCompletedJob', message: `Saw completed job: ${firstJob.metadata?.name}, condition: Complete` },
            { type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${second}` },
          ]),
        ),
      10_000,
      100,
    );
  });

  it('Replace: deletes the active Job (in the background) and starts the new run', async () => {
    const { firstJob, secondRunMs } = await withActiveRun('replace', 'Replace');
    const second = `replace-${secondRunMs / MINUTE}`;
    await eventually(async () => expect((await jobsOf('replace')).map((j) => j.metadata?.name)).toEqual([second]), 15_000, 100);
    await eventually(
      async () =>
        expect(await eventsOf('replace')).toEqual(
          expect.arrayContaining([
            { type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted job ${firstJob.metadata?.name}` },
            { type: 'Normal', reason: 'SuccessfulCreate', message: `Created job ${second}` },
          ]),
        ),
      10_000,
      100,
    );
    await eventually(async () => expect((await cronJobs().get('replace')).status?.active?.map((r) => r.name)).toEqual([second]), 10_000, 100);
  });

  it("refuses an invalid schedule or time zone with Kubernetes' messages", async () => {
    const refused = async (...args: string[]) => {
      const result = await runKubectl(['create', '-n', ns, ...args], apiserver.kubectlEnv);
      expect(result.code).not.toBe(0);
      return result.stderr.trim();
    };
    expect(await refused('cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *')).toBe(
      'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    );
    const res = await fetchCronJob({ schedule: '@hourly', timeZone: 'Mars/Olympus' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      reason: 'Invalid',
      message: 'CronJob.batch "bad" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    });
    const tz = await fetchCronJob({ schedule: 'CRON_TZ=UTC 0 * * * *' });
    expect(tz.status).toBe(422);
    expect((tz.body as { message: string }).message).toBe(
      'CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    );
  });

  it('kubectl create cronjob with --schedule="*/1 * * * *" starts its first Job at the next minute', async () => {
    const tick = await cronJobs().get('tick');
    // The first run is the first minute strictly after the CronJob was made.
    const boundary = Math.floor(Date.parse(tick.metadata?.creationTimestamp ?? '') / MINUTE) * MINUTE + MINUTE;
    const name = `tick-${boundary / MINUTE}`;
    // Made just after the minute, without polling: at most the wait for the boundary and a few seconds.
    const job = await eventually(() => jobs().get(name), Math.max(0, boundary - Date.now()) + 15_000, 200);
    expect(Date.parse(job.metadata?.creationTimestamp ?? '')).toBeGreaterThanOrEqual(boundary - 1000);
    expect(job.metadata?.annotations).toEqual({ [SCHEDULED_AT]: metaTime(boundary) });
    expect(job.metadata?.ownerReferences).toEqual([
      { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: tick.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(job.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'tick', image: 'busybox', command: ['date'] })]);
    await eventually(async () => {
      const status = (await cronJobs().get('tick')).status;
      expect(status?.lastScheduleTime).toBe(metaTime(boundary));
      expect(status?.active?.map((r) => r.name)).toEqual([name]);
    });
    // kubectl shows it active, and the event of its creation.
    const described = await kubectl('describe', 'cronjob', 'tick', '-n', ns);
    expect(described).toMatch(new RegExp(`^Active Jobs:\\s+${name}$`, 'm'));
    expect(described).toMatch(new RegExp(`Normal\\s+SuccessfulCreate\\s+.*cronjob-controller\\s+Created job ${name}`));
    // Each Job's lateness after its scheduled time, in Kubernetes' stable histogram.
    const metrics = (await cm.get('/metrics')).body;
    expect(Number(/^cronjob_controller_job_creation_skew_duration_seconds_count (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^cronjob_controller_job_creation_skew_duration_seconds_bucket\{le="512"\} \d+$/m);
  });
});

/** POSTs a CronJob named `bad` with these schedule fields, as any client would; the Status of its refusal. */
async function fetchCronJob(spec: { schedule: string; timeZone?: string }): Promise<{ status: number; body: unknown }> {
  try {
    await cronJobs().create({
      metadata: { name: 'bad' },
      spec: { ...spec, jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } } },
    });
    return { status: 201, body: undefined };
  } catch (error) {
    if (!(error instanceof StatusError)) throw error;
    return { status: error.code, body: error.status };
  }
}
