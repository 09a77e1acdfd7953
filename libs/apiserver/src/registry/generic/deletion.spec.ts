import { builtinScheme, type ApiObject, type KindDefinition } from '@svc/api';
import { isReleased, planDeletion } from './deletion';

const scheme = builtinScheme();
const kind = (resource: string, group = ''): KindDefinition => scheme.byResource({ group, version: 'v1', resource })!;
const configMaps = kind('configmaps');
const pods = kind('pods');
const namespaces = kind('namespaces');
const now = new Date('2030-01-02T03:04:05.678Z');

function object(metadata: Record<string, unknown> = {}, rest: Record<string, unknown> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', ...metadata }, ...rest };
}

describe('planDeletion', () => {
  it('removes an object without finalizers at once', () => {
    expect(planDeletion(configMaps, object(), {}, now)).toEqual({ action: 'remove' });
  });

  it('marks an object with finalizers Terminating, with no grace period', () => {
    const plan = planDeletion(configMaps, object({ finalizers: ['x/y'] }), {}, now);
    expect(plan).toMatchObject({
      action: 'mark',
      object: { metadata: { deletionTimestamp: '2030-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, finalizers: ['x/y'] } },
    });
  });

  it('adds the garbage collector finalizers the propagation policy asks for', () => {
    expect(planDeletion(configMaps, object(), { propagationPolicy: 'Foreground' }, now)).toMatchObject({
      action: 'mark',
      object: { metadata: { finalizers: ['foregroundDeletion'] } },
    });
    expect(planDeletion(configMaps, object({ finalizers: ['foregroundDeletion'] }), { propagationPolicy: 'Orphan' }, now)).toMatchObject({
      action: 'mark',
      object: { metadata: { finalizers: ['orphan'] } },
    });
    expect(planDeletion(configMaps, object(), { orphanDependents: true }, now)).toMatchObject({ object: { metadata: { finalizers: ['orphan'] } } });
    expect(planDeletion(configMaps, object({ finalizers: ['orphan'] }), { propagationPolicy: 'Background' }, now)).toEqual({ action: 'remove' });
  });

  it('never moves the deletionTimestamp of a Terminating object, and changes nothing when nothing changes', () => {
    const terminating = object({ finalizers: ['x/y'], deletionTimestamp: '2029-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
    expect(planDeletion(configMaps, terminating, {}, now)).toEqual({ action: 'none' });
    const plan = planDeletion(configMaps, terminating, { propagationPolicy: 'Foreground' }, now);
    expect(plan).toMatchObject({
      action: 'mark',
      object: { metadata: { deletionTimestamp: '2029-01-01T00:00:00Z', finalizers: ['x/y', 'foregroundDeletion'] } },
    });
  });

  it('deletes pods without a node at once and gives bound pods their grace period', () => {
    expect(planDeletion(pods, object({}, { spec: { containers: [] } }), {}, now)).toEqual({ action: 'remove' });
    const bound = object({}, { spec: { nodeName: 'n1', terminationGracePeriodSeconds: 10 }, status: { phase: 'Running' } });
    expect(planDeletion(pods, bound, {}, now)).toMatchObject({
      action: 'mark',
      object: { metadata: { deletionTimestamp: '2030-01-02T03:04:15Z', deletionGracePeriodSeconds: 10 } },
    });
    expect(planDeletion(pods, bound, { gracePeriodSeconds: 0 }, now)).toEqual({ action: 'remove' });
    expect(planDeletion(pods, { ...bound, status: { phase: 'Succeeded' } }, {}, now)).toEqual({ action: 'remove' });
  });

  it('shortens the grace period of a pod already terminating, and removes it at zero', () => {
    const terminating = object(
      { deletionTimestamp: '2030-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 },
      { spec: { nodeName: 'n1' }, status: { phase: 'Running' } },
    );
    expect(planDeletion(pods, terminating, { gracePeriodSeconds: 5 }, now)).toMatchObject({
      action: 'mark',
      object: { metadata: { deletionTimestamp: '2030-01-02T03:04:10Z', deletionGracePeriodSeconds: 5 } },
    });
    expect(planDeletion(pods, terminating, { gracePeriodSeconds: 0 }, now)).toEqual({ action: 'remove' });
    expect(planDeletion(pods, terminating, { gracePeriodSeconds: 60 }, now)).toEqual({ action: 'none' });
  });

  it('marks a namespace Terminating while its spec.finalizers remain', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' }, spec: { finalizers: ['svc'] }, status: { phase: 'Active' } };
    expect(planDeletion(namespaces, ns, {}, now)).toMatchObject({
      action: 'mark',
      object: { metadata: { deletionTimestamp: '2030-01-02T03:04:05Z' }, status: { phase: 'Terminating' } },
    });
    expect(planDeletion(namespaces, { ...ns, spec: { finalizers: [] } }, {}, now)).toEqual({ action: 'remove' });
  });
});

describe('isReleased', () => {
  it('is true for a Terminating object without finalizers only', () => {
    expect(isReleased(configMaps, object({ deletionTimestamp: '2030-01-01T00:00:00Z' }))).toBe(true);
    expect(isReleased(configMaps, object({ deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['a'] }))).toBe(false);
    expect(isReleased(configMaps, object())).toBe(false);
  });

  it('waits for a namespace spec.finalizers and a pod grace period', () => {
    const ns = { metadata: { name: 'x', deletionTimestamp: '2030-01-01T00:00:00Z' }, spec: { finalizers: ['svc'] } };
    expect(isReleased(namespaces, ns)).toBe(false);
    expect(isReleased(namespaces, { ...ns, spec: { finalizers: [] } })).toBe(true);
    expect(isReleased(pods, object({ deletionTimestamp: '2030-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 }))).toBe(false);
  });
});
