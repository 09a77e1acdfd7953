import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { adminCall } from '../../testing/https-call';

// events.k8s.io/v1 Events are core/v1 Events: one storage, two shapes.

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const eventsApi = '/apis/events.k8s.io/v1/namespaces/default/events';
const coreApi = '/api/v1/namespaces/default/events';

const newEvent = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-12-07T10:00:00.123456Z',
  reportingController: 'example.com/reporter',
  reportingInstance: 'reporter-1',
  action: 'Checking',
  reason: 'Checked',
  note: 'all is well',
  type: 'Normal',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' },
  ...extra,
});

const causes = (body: Record<string, unknown>) =>
  ((body.details as { causes?: Array<{ field: string; message: string }> } | undefined)?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('events.k8s.io/v1 Events', () => {
  it('are written through events.k8s.io and read through core/v1 with the fields mapped, and back', async () => {
    const made = await adminCall(env, 'POST', eventsApi, newEvent('checked'));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'all is well', regarding: { name: 'web' } });
    const asCore = await adminCall(env, 'GET', `${coreApi}/checked`);
    expect(asCore.status).toBe(200);
    expect(asCore.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'all is well',
      involvedObject: { kind: 'Pod', name: 'web' },
      reportingComponent: 'example.com/reporter',
      reportingInstance: 'reporter-1',
      action: 'Checking',
      reason: 'Checked',
      type: 'Normal',
    });
    expect(asCore.body.note).toBeUndefined();
    // A core/v1 Event of an older reporter reads with its deprecated fields.
    const older = await adminCall(env, 'POST', coreApi, {
      metadata: { name: 'older' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
      reason: 'Pulled',
      message: 'pulled the image',
      source: { component: 'kubelet', host: 'node-a' },
      firstTimestamp: '2026-12-07T10:00:00Z',
      lastTimestamp: '2026-12-07T10:05:00Z',
      count: 3,
      type: 'Normal',
    });
    expect(older.status).toBe(201);
    const asEvents = await adminCall(env, 'GET', `${eventsApi}/older`);
    expect(asEvents.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'pulled the image',
      regarding: { kind: 'Pod', name: 'web' },
      deprecatedSource: { component: 'kubelet', host: 'node-a' },
      deprecatedFirstTimestamp: '2026-12-07T10:00:00Z',
      deprecatedLastTimestamp: '2026-12-07T10:05:00Z',
      deprecatedCount: 3,
    });
    const list = await adminCall(env, 'GET', eventsApi);
    const names = (list.body.items as Array<{ metadata: { name: string }; apiVersion?: string }>).map((e) => e.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['checked', 'older']));
    // A series update through events.k8s.io is seen through core/v1.
    const series = await adminCall(
      env,
      'PATCH',
      `${eventsApi}/checked`,
      { series: { count: 2, lastObservedTime: '2026-12-07T10:01:00.000000Z' } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    expect(series.status).toBe(200);
    expect((await adminCall(env, 'GET', `${coreApi}/checked`)).body.series).toEqual({ count: 2, lastObservedTime: '2026-12-07T10:01:00.000000Z' });
  });

  it("refuses what events.k8s.io refuses, in Kubernetes' words", async () => {
    const bad = await adminCall(
      env,
      'POST',
      eventsApi,
      newEvent('bad', { type: 'Odd', reportingController: '', action: '', deprecatedCount: 2, series: { count: 1, lastObservedTime: '2026-12-07T10:00:00Z' } }),
    );
    expect(bad.status).toBe(422);
    expect(causes(bad.body)).toEqual(
      expect.arrayContaining([
        'reportingController: Required value',
        'action: Required value',
        'type: Invalid value: "": has invalid value: Odd',
        'deprecatedCount: Invalid value: "": needs to be unset',
        'series.count: Invalid value: "": should be at least 2',
      ]),
    );
    const noTime = await adminCall(env, 'POST', eventsApi, newEvent('untimed', { eventTime: undefined }));
    expect(noTime.status).toBe(422);
    expect(causes(noTime.body)).toContain('eventTime: Required value');
    expect((await adminCall(env, 'POST', eventsApi, newEvent('changing'))).status).toBe(201);
    const changed = await adminCall(env, 'PATCH', `${eventsApi}/changing`, { note: 'something else' }, { 'Content-Type': 'application/merge-patch+json' });
    expect(changed.status).toBe(422);
    expect(causes(changed.body)).toEqual(['message: Invalid value: "something else": field is immutable']);
  });

  it("is listed with kubectl's Event columns", async () => {
    const table = await adminCall(env, 'GET', eventsApi, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const columns = (table.body.columnDefinitions as Array<{ name: string }>).map((c) => c.name);
    expect(columns.slice(0, 4)).toEqual(['Last Seen', 'Type', 'Reason', 'Object']);
    const rows = table.body.rows as Array<{ cells: unknown[] }>;
    expect(rows.some((r) => r.cells[3] === 'pod/web')).toBe(true);
  });
});
