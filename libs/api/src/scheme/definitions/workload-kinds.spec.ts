import { fieldErrorMessage } from '@svc/machinery';
import { compileKind } from '../../schema/compile-kind';
import type { ApiObject, KindDefinition } from '../kind-definition';
import { buildTable } from '../table';
import { controllerRevisionDefinition } from './controller-revision-definition';
import { cronJobDefinition } from './cron-job-definition';
import { daemonSetDefinition } from './daemon-set-definition';
import { jobDefinition } from './job-definition';
import { podTemplateDefinition } from './pod-template-definition';
import { priorityClassDefinition } from './priority-class-definition';
import { statefulSetDefinition } from './stateful-set-definition';

// The workload kinds' defaults, validation and tables, against what Kubernetes 1.32 answers.

const UID = '0d9e7a32-3c31-4c0e-8d7b-5f4e2b1a9c00';

/** Defaults, the strategy's create preparation, then validation, as a create goes. */
function created(def: KindDefinition, input: unknown): { object: ApiObject; errors: string[] } {
  const object = structuredClone(input) as ApiObject;
  object.metadata = { uid: UID, ...(object.metadata ?? {}) };
  def.strategy.prepareForCreate?.(object);
  compileKind(def).default(object);
  return { object, errors: compileKind(def).validate(object).map(fieldErrorMessage) };
}

function updated(def: KindDefinition, current: ApiObject, change: (o: ApiObject) => void): string[] {
  const next = structuredClone(current);
  change(next);
  def.strategy.prepareForUpdate?.(next, current);
  compileKind(def).default(next);
  return [...compileKind(def).validate(next, current), ...(def.strategy.validateUpdate?.(next, current) ?? [])].map(fieldErrorMessage);
}

const container = { name: 'c', image: 'busybox:1.36' };
const job = (spec: Record<string, unknown> = {}, name = 'pi') => ({
  metadata: { name },
  spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } }, ...spec },
});

describe('Job', () => {
  it("takes Kubernetes' defaults", () => {
    const { object, errors } = created(jobDefinition, job());
    expect(errors).toEqual([]);
    expect(object.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
    });
    expect(object.metadata?.labels).toEqual({
      'batch.kubernetes.io/controller-uid': UID,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': UID,
      'job-name': 'pi',
    });
    const parallel = created(jobDefinition, job({ parallelism: 3, backoffLimitPerIndex: 1, completionMode: 'Indexed', completions: 4 })).object.spec;
    expect(parallel).toMatchObject({ completions: 4, parallelism: 3, backoffLimit: 2147483647 });
    const withPolicy = created(jobDefinition, job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }));
    expect(withPolicy.errors).toEqual([]);
    expect(withPolicy.object.spec).toMatchObject({ podReplacementPolicy: 'Failed', podFailurePolicy: { rules: [{ onPodConditions: [{ status: 'True' }] }] } });
  });

  it("refuses bad specs with Kubernetes' field paths and messages", () => {
    expect(created(jobDefinition, job({ completions: -1 })).errors).toEqual(['spec.completions: Invalid value: -1: must be greater than or equal to 0']);
    const always = job();
    (always.spec.template.spec as Record<string, unknown>).restartPolicy = undefined;
    expect(created(jobDefinition, always).errors).toEqual(['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
    expect(created(jobDefinition, job({ completionMode: 'Indexed', backoffLimitPerIndex: 1, maxFailedIndexes: 5, completions: 2 })).errors).toEqual([
      'spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions',
    ]);
    expect(created(jobDefinition, job({ maxFailedIndexes: 1 })).errors).toEqual([
      'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
      'spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode',
    ]);
    expect(created(jobDefinition, job({ completionMode: 'Indexed', parallelism: 2 })).errors).toEqual([
      'spec.completions: Required value: when completion mode is Indexed',
    ]);
    // The pods of an Indexed Job are host-named <job>-<index>.
    expect(created(jobDefinition, job({ completionMode: 'Indexed', completions: 10 }, 'a'.repeat(62))).errors).toEqual([
      `metadata.name: Invalid value: "${'a'.repeat(62)}": will not able to create pod with invalid DNS label: ${'a'.repeat(62)}-9`,
    ]);
    expect(
      created(
        jobDefinition,
        job({
          podFailurePolicy: {
            rules: [
              { action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 3, 2, 3], containerName: 'other' } },
              { action: 'Explode', onPodConditions: [{ type: 'bad type!', status: 'Maybe' }] },
              { action: 'FailIndex', onExitCodes: { operator: 'NotIn', values: [1] }, onPodConditions: [{ type: 'Ready' }] },
              { action: '' },
            ],
          },
        }),
      ).errors,
    ).toEqual([
      'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "other": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 3',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,3,2,3]: must be ordered',
      'spec.podFailurePolicy.rules[1].action: Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      expect.stringMatching(/^spec\.podFailurePolicy\.rules\[1\]\.onPodConditions\[0\]\.type: Invalid value: "bad type!": name part must consist of/),
      'spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'spec.podFailurePolicy.rules[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[2]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
      'spec.podFailurePolicy.rules[3].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
      'spec.podFailurePolicy.rules[3]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    ]);
    expect(created(jobDefinition, job({ successPolicy: { rules: [{ succeededCount: 1 }] } })).errors).toEqual([
      'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode',
    ]);
    expect(
      created(jobDefinition, job({ completionMode: 'Indexed', completions: 3, successPolicy: { rules: [{ succeededIndexes: '0,2-1', succeededCount: 5 }] } }))
        .errors,
    ).toEqual([
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0,2-1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 5: must be less than or equal to 3 (the number of specified completions)',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 5: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
    ]);
    expect(created(jobDefinition, job({ managedBy: 'not a path' })).errors).toEqual([
      'spec.managedBy: Invalid value: "not a path": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
  });

  it('checks a selector the server made, and one given by hand', () => {
    const tampered = job();
    (tampered.spec.template as Record<string, unknown>).metadata = { labels: { 'batch.kubernetes.io/job-name': 'other' } };
    expect(created(jobDefinition, tampered).errors).toEqual([
      'spec.template.metadata.labels[batch.kubernetes.io/job-name]: Invalid value: ' +
        JSON.stringify({ 'batch.kubernetes.io/job-name': 'other', 'job-name': 'pi', 'controller-uid': UID, 'batch.kubernetes.io/controller-uid': UID }) +
        ": must be 'pi'",
    ]);
    const manual = job({ manualSelector: true, selector: { matchLabels: { app: 'x' } } });
    expect(created(jobDefinition, manual).errors).toEqual(['spec.template.metadata.labels: Invalid value: {}: `selector` does not match template `labels`']);
    expect(created(jobDefinition, job({ manualSelector: true })).errors).toEqual(['spec.selector: Required value']);
  });

  it('refuses changes to its immutable fields', () => {
    const { object } = created(jobDefinition, job({ completions: 2 }));
    expect(updated(jobDefinition, object, (o) => ((o.spec as Record<string, unknown>).completions = 3))).toEqual([
      'spec.completions: Invalid value: 3: field is immutable',
    ]);
    expect(updated(jobDefinition, object, (o) => ((o.spec as Record<string, unknown>).parallelism = 5))).toEqual([]);
    expect(updated(jobDefinition, object, (o) => ((o.spec as Record<string, unknown>).suspend = true))).toEqual([]);
    const image = updated(
      jobDefinition,
      object,
      (o) => ((o.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image = 'x'),
    );
    expect(image).toEqual([expect.stringMatching(/^spec\.template: Invalid value: .*: field is immutable$/)]);
  });

  it('refuses a status that takes the Job back out of a finished state or loses counts', () => {
    const { object } = created(jobDefinition, job());
    const finished: ApiObject = {
      ...object,
      status: {
        startTime: '2024-01-01T00:00:00Z',
        completionTime: '2024-01-01T00:01:00Z',
        succeeded: 1,
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True' },
          { type: 'Complete', status: 'True' },
        ],
      },
    };
    const status = (s: Record<string, unknown>) =>
      (jobDefinition.strategy.status?.validateUpdate?.({ ...finished, status: s }, finished) ?? []).map(fieldErrorMessage);
    expect(status(finished.status as Record<string, unknown>)).toEqual([]);
    expect(status({ ...(finished.status as object), succeeded: 0, conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }] })).toEqual([
      'status.completionTime: Invalid value: "2024-01-01T00:01:00Z": cannot set completionTime when there is no Complete=True condition',
      'status.conditions: Invalid value: cannot disable the terminal Complete=True condition',
      'status.succeeded: Invalid value: 0: cannot decrease the succeeded counter',
    ]);
    expect(status({ ...(finished.status as object), active: 1 })).toEqual(['status.active: Invalid value: 1: active>0 is invalid for finished job']);
  });

  it("prints Kubernetes' columns", () => {
    const running = { ...job({ completions: 3 }), status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z' } };
    const done = {
      ...job({ parallelism: 2 }),
      status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:42Z', conditions: [{ type: 'Complete', status: 'True' }] },
    };
    const table = buildTable(jobDefinition, [running, done] as ApiObject[], { now: new Date('2024-01-01T00:05:00Z') });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    expect(table.rows.map((r) => r.cells.slice(1, 4))).toEqual([
      ['Running', '1/3', '5m'],
      ['Complete', '1/1 of 2', '42s'],
    ]);
  });
});

const cronJob = (spec: Record<string, unknown> = {}, name = 'hello') => ({
  metadata: { name },
  spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: { spec: { containers: [container], restartPolicy: 'OnFailure' } } } }, ...spec },
});

describe('CronJob', () => {
  it("takes Kubernetes' defaults, and leaves its job template as written", () => {
    const { object, errors } = created(cronJobDefinition, cronJob());
    expect(errors).toEqual([]);
    expect(object.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const jobSpec = (object.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec;
    expect(Object.keys(jobSpec)).toEqual(['template']);
    expect(object.status).toEqual({});
  });

  it("refuses a bad schedule, a time zone in it and an unknown time zone, in Kubernetes' words", () => {
    expect(created(cronJobDefinition, cronJob({ schedule: '61 * * * *' })).errors).toEqual([
      'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    ]);
    expect(created(cronJobDefinition, cronJob({ schedule: 'not a schedule' })).errors).toEqual([
      'spec.schedule: Invalid value: "not a schedule": expected exactly 5 fields, found 3: [not a schedule]',
    ]);
    expect(created(cronJobDefinition, cronJob({ schedule: 'CRON_TZ=UTC 0 * * * *' })).errors).toEqual([
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    expect(created(cronJobDefinition, cronJob({ timeZone: 'Mars/Olympus' })).errors).toEqual([
      'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    ]);
    expect(created(cronJobDefinition, cronJob({ timeZone: 'Europe/Paris', concurrencyPolicy: 'Sometimes' })).errors).toEqual([
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
    expect(created(cronJobDefinition, cronJob({}, 'c'.repeat(53))).errors).toEqual([
      `metadata.name: Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`,
    ]);
    const selected = cronJob();
    (selected.spec.jobTemplate.spec as Record<string, unknown>).selector = { matchLabels: { a: 'b' } };
    expect(created(cronJobDefinition, selected).errors).toEqual([
      'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
    ]);
  });

  it('keeps a time zone in a schedule stored before the field existed, but not beside the field', () => {
    const stored = {
      ...created(cronJobDefinition, cronJob()).object,
      spec: { ...(created(cronJobDefinition, cronJob()).object.spec as object), schedule: 'TZ=UTC 0 * * * *' },
    };
    expect(updated(cronJobDefinition, stored, (o) => ((o.spec as Record<string, unknown>).suspend = true))).toEqual([]);
    expect(updated(cronJobDefinition, stored, (o) => ((o.spec as Record<string, unknown>).timeZone = 'UTC'))).toEqual([
      'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule',
    ]);
  });

  it("prints Kubernetes' columns", () => {
    const table = buildTable(
      cronJobDefinition,
      [{ ...cronJob(), status: { active: [{ name: 'j' }], lastScheduleTime: '2024-01-01T00:04:00Z' } }] as ApiObject[],
      {
        now: new Date('2024-01-01T00:05:00Z'),
      },
    );
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Schedule',
      'Timezone',
      'Suspend',
      'Active',
      'Last Schedule',
      'Age',
      'Containers',
      'Images',
      'Selector',
    ]);
    expect(table.rows[0].cells.slice(0, 6)).toEqual(['hello', '*/1 * * * *', '<none>', '<unset>', 1, '60s']);
  });
});

const podTemplate = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ ...container, volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
});

describe('StatefulSet', () => {
  const sts = (spec: Record<string, unknown> = {}) => ({
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      serviceName: 'web',
      template: podTemplate({ app: 'web' }),
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...spec,
    },
  });

  it("takes Kubernetes' defaults; its pods mount the claims of its templates", () => {
    const { object, errors } = created(statefulSetDefinition, sts());
    expect(errors).toEqual([]);
    expect(object.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      volumeClaimTemplates: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    expect(object.status).toEqual({ replicas: 0, availableReplicas: 0 });
    // maxUnavailable is behind a feature that is off in 1.32: dropped.
    const dropped = created(statefulSetDefinition, sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } })).object;
    expect(dropped.spec).toMatchObject({ updateStrategy: { rollingUpdate: { partition: 0 } } });
    expect(JSON.stringify(dropped.spec)).not.toContain('maxUnavailable');
  });

  it("refuses a selector that does not match the template, and other bad specs, in Kubernetes' words", () => {
    expect(created(statefulSetDefinition, sts({ template: podTemplate({ app: 'other' }) })).errors).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
    ]);
    expect(created(statefulSetDefinition, sts({ podManagementPolicy: 'Random', updateStrategy: { type: 'OnDelete', rollingUpdate: {} } })).errors).toEqual([
      "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
      "spec.updateStrategy.rollingUpdate: Invalid value: {}: only allowed for updateStrategy 'RollingUpdate'",
    ]);
    expect(created(statefulSetDefinition, sts({ replicas: -1, selector: {} })).errors).toEqual([
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.selector: Invalid value: {}: empty selector is invalid for statefulset',
    ]);
    expect(created(statefulSetDefinition, { ...sts(), metadata: { name: 'web.v1' } }).errors).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value: "web\.v1": /),
    ]);
  });

  it('lets an update change only replicas, ordinals, template, updateStrategy, the retention policy and minReadySeconds', () => {
    const { object } = created(statefulSetDefinition, sts());
    expect(updated(statefulSetDefinition, object, (o) => ((o.spec as Record<string, unknown>).replicas = 5))).toEqual([]);
    expect(updated(statefulSetDefinition, object, (o) => ((o.spec as Record<string, unknown>).serviceName = 'other'))).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });
});

describe('DaemonSet', () => {
  const ds = (spec: Record<string, unknown> = {}) => ({
    metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [container] } }, ...spec },
  });

  it("takes Kubernetes' defaults and starts at template generation 1", () => {
    const { object, errors } = created(daemonSetDefinition, ds());
    expect(errors).toEqual([]);
    expect(object.spec).toMatchObject({
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    });
    expect(object.metadata?.annotations).toEqual({ 'deprecated.daemonset.template.generation': '1' });
  });

  it("refuses bad update strategies and a changed selector, in Kubernetes' words", () => {
    expect(created(daemonSetDefinition, ds({ updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } })).errors).toEqual([
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
    ]);
    expect(created(daemonSetDefinition, ds({ updateStrategy: { rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } } })).errors).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
    expect(created(daemonSetDefinition, ds({ updateStrategy: { type: 'Sometimes' } })).errors).toEqual([
      'spec.updateStrategy: Unsupported value: {"type":"Sometimes"}: supported values: "RollingUpdate", "OnDelete"',
    ]);
    const { object } = created(daemonSetDefinition, ds());
    expect(
      updated(daemonSetDefinition, object, (o) => {
        const spec = o.spec as { selector: unknown; template: { metadata: { labels: Record<string, string> } } };
        spec.selector = { matchLabels: { app: 'agent', tier: 'x' } };
        spec.template.metadata.labels.tier = 'x';
      }),
    ).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"agent","tier":"x"}}: field is immutable']);
  });

  it("prints Kubernetes' columns", () => {
    const table = buildTable(daemonSetDefinition, [
      { ...ds(), status: { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1 } },
    ] as ApiObject[]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
      'Containers',
      'Images',
      'Selector',
    ]);
    expect(table.rows[0].cells.slice(0, 7)).toEqual(['agent', 2, 2, 1, 0, 0, '<none>']);
  });
});

describe('ControllerRevision, PodTemplate and PriorityClass', () => {
  it('keeps what a revision records', () => {
    expect(created(controllerRevisionDefinition, { metadata: { name: 'r' }, revision: 1 }).errors).toEqual(['data: Required value: data is mandatory']);
    const table = buildTable(controllerRevisionDefinition, [
      {
        metadata: { name: 'web-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] },
        data: {},
        revision: 3,
      },
    ]);
    expect(table.rows[0].cells.slice(0, 3)).toEqual(['web-1', 'statefulset.apps/web', 3]);
  });

  it('checks the pod a PodTemplate describes, and counts its changes in its generation', () => {
    expect(
      created(podTemplateDefinition, {
        metadata: { name: 't' },
        template: { spec: { containers: [{ ...container, volumeMounts: [{ name: 'x', mountPath: '/x' }] }] } },
      }).errors,
    ).toEqual(['template.spec.containers[0].volumeMounts[0].name: Not found: "x"']);
    expect(podTemplateDefinition.strategy.tracksGeneration).toBe(true);
  });

  it("reserves system- names and values above a billion, in Kubernetes' words", () => {
    expect(created(priorityClassDefinition, { metadata: { name: 'system-custom' }, value: 1 }).errors).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-custom is not a known system priority class",
    ]);
    expect(created(priorityClassDefinition, { metadata: { name: 'system-node-critical' }, value: 1 }).errors).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    ]);
    expect(created(priorityClassDefinition, { metadata: { name: 'huge' }, value: 1_000_000_001 }).errors).toEqual([
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
    const { object, errors } = created(priorityClassDefinition, { metadata: { name: 'high' }, value: 1000 });
    expect(errors).toEqual([]);
    expect(object.preemptionPolicy).toBe('PreemptLowerPriority');
    expect(buildTable(priorityClassDefinition, [object]).rows[0].cells.slice(0, 3)).toEqual(['high', 1000, false]);
  });
});
