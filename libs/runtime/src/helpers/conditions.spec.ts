import { Type } from '@sinclair/typebox';
import type { Condition } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { parse } from 'yaml';
import { defineResource, type ResourceType } from '../resources/define-resource';
import { installCustomResources } from '../resources/install-resources';
import {
  conditionTime,
  Conditions,
  findCondition,
  isConditionCurrentAndTrue,
  isConditionFalse,
  isConditionTrue,
  isStatusCurrent,
  removeCondition,
  setCondition,
} from './conditions';
import { updateStatusWithRetry } from './update-status';

const t0 = new Date('2026-01-02T03:04:05.678Z');
const t1 = new Date('2026-01-02T03:09:00.000Z');

describe('setCondition', () => {
  it('adds a new type with the transition time now, at whole seconds as metav1.Time writes it', () => {
    const next = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Starting' }, t0);
    expect(next).toEqual([{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'Starting', message: '' }]);
    expect(conditionTime(t0)).toBe('2026-01-02T03:04:05Z');
  });

  it('keeps the transition time while the status stays, and moves it when the status changes', () => {
    const frozen = Object.freeze([
      Object.freeze({ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'Starting', message: '' }),
    ]) as readonly Condition[];
    const reworded = setCondition(frozen, { type: 'Ready', status: 'False', reason: 'Pulling', message: 'image', observedGeneration: 2 }, t1);
    expect(reworded[0]).toEqual({
      type: 'Ready',
      status: 'False',
      observedGeneration: 2,
      lastTransitionTime: '2026-01-02T03:04:05Z',
      reason: 'Pulling',
      message: 'image',
    });
    const ready = setCondition(reworded, { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 2 }, t1);
    expect(ready[0]).toMatchObject({ status: 'True', lastTransitionTime: '2026-01-02T03:09:00Z', reason: 'Available', message: '' });
    const given = setCondition(ready, { type: 'Ready', status: 'False', reason: 'Lost', lastTransitionTime: '2026-01-01T00:00:00Z' }, t1);
    expect(given[0].lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(frozen[0].reason).toBe('Starting');
  });

  it('returns the same list when nothing changes, so a reconcile can skip the write', () => {
    const list = setCondition([], { type: 'Ready', status: 'True', reason: 'Available', message: 'ok', observedGeneration: 3 }, t0);
    expect(setCondition(list, { type: 'Ready', status: 'True', reason: 'Available', message: 'ok', observedGeneration: 3 }, t1)).toBe(list);
    expect(setCondition(list, { type: 'Ready', status: 'True', reason: 'Available', message: 'ok', observedGeneration: 4 }, t1)).not.toBe(list);
    expect(removeCondition(list, 'Degraded')).toBe(list);
    expect(removeCondition(list, 'Ready')).toEqual([]);
  });

  it('reads conditions and generations as kstatus does', () => {
    const conditions = setCondition(setCondition([], { type: 'Ready', status: 'True', reason: 'A', observedGeneration: 1 }), {
      type: 'Degraded',
      status: 'False',
      reason: 'B',
    });
    expect(findCondition(conditions, 'Degraded')?.reason).toBe('B');
    expect([isConditionTrue(conditions, 'Ready'), isConditionFalse(conditions, 'Degraded'), isConditionTrue(conditions, 'Other')]).toEqual([true, true, false]);
    const obj = { metadata: { generation: 2 }, status: { observedGeneration: 1, conditions } };
    expect(isStatusCurrent(obj)).toBe(false);
    expect(isConditionCurrentAndTrue(obj, 'Ready')).toBe(false);
    const caughtUp = { metadata: { generation: 1 }, status: { observedGeneration: 1, conditions } };
    expect(isStatusCurrent(caughtUp)).toBe(true);
    expect(isConditionCurrentAndTrue(caughtUp, 'Ready')).toBe(true);
    expect(isStatusCurrent({ metadata: {} })).toBe(true);
  });
});

describe('Conditions in a resource type', () => {
  const websites = defineResource({
    group: 'conditions.example.com',
    kind: 'Website',
    storage: 'v1',
    versions: {
      v1: {
        spec: Type.Object({ image: Type.String() }),
        status: Type.Object({ observedGeneration: Type.Optional(Type.Integer()), conditions: Type.Optional(Conditions()) }),
      },
    },
  });
  type Website = ResourceType<typeof websites>;

  let env: TestEnvironment;
  beforeAll(async () => {
    env = await startTestEnvironment();
    await installCustomResources(env.client, [websites]);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('declares a list-map keyed by type in Kubernetes’ markers only', () => {
    const schema = parse(websites.yaml()).spec.versions[0].schema.openAPIV3Schema.properties.status.properties.conditions;
    expect(schema).toMatchObject({ type: 'array', maxItems: 32, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
    expect(schema.items.required).toEqual(['type', 'status', 'lastTransitionTime', 'reason', 'message']);
    expect(websites.yaml()).not.toMatch(/x-svc-|patch-strategy|patch-merge-key/);
  });

  it('writes conditions the API server accepts, with observedGeneration from the object', async () => {
    const client = env.client.resource(websites.resource).inNamespace('default');
    const created = await client.create({ metadata: { name: 'site' }, spec: { image: 'httpd:2.4' } });
    const written = await updateStatusWithRetry(client, created, (w: Website) => {
      const generation = w.metadata?.generation;
      w.status = {
        observedGeneration: generation,
        conditions: setCondition(w.status?.conditions, { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: generation }),
      };
    });
    expect(written.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', observedGeneration: 1 });
    expect(isStatusCurrent(written)).toBe(true);
    const changed = await client.patch('site', { spec: { image: 'httpd:2.5' } }, 'merge');
    expect(isStatusCurrent(changed)).toBe(false);
    expect(isConditionCurrentAndTrue(changed, 'Ready')).toBe(false);
    // A reason the schema refuses (empty) is the server's 422, not a silent write.
    await expect(
      client.updateStatus({
        ...changed,
        status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: conditionTime(), reason: '', message: '' }] },
      }),
    ).rejects.toMatchObject({ status: { code: 422 } });
  });
});
