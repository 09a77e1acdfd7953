import type { Job } from '@svc/api';
import { needsCleanup, ttlRemainingMs } from './ttl-expiry';

function job(ttl: number | undefined, conditions: Array<{ type: string; status: 'True' | 'False'; lastTransitionTime?: string }>, deleting = false): Job {
  return {
    metadata: { name: 'j', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { ttlSecondsAfterFinished: ttl, template: { spec: { containers: [] } } },
    status: { conditions },
  };
}

describe('the TTL of a finished Job', () => {
  const at = '2026-01-01T00:01:00Z';
  const now = Date.parse('2026-01-01T00:01:30Z');

  it('runs from the time Complete or Failed turned True', () => {
    expect(ttlRemainingMs(job(60, [{ type: 'Complete', status: 'True', lastTransitionTime: at }]), now)).toBe(30_000);
    expect(ttlRemainingMs(job(10, [{ type: 'Failed', status: 'True', lastTransitionTime: at }]), now)).toBe(-20_000);
    expect(ttlRemainingMs(job(0, [{ type: 'Complete', status: 'True', lastTransitionTime: at }]), now)).toBe(-30_000);
  });

  it('does not apply to a Job without a TTL, not finished, being deleted, or whose finish time cannot be read', () => {
    expect(ttlRemainingMs(job(undefined, [{ type: 'Complete', status: 'True', lastTransitionTime: at }]), now)).toBeUndefined();
    expect(ttlRemainingMs(job(60, [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at }]), now)).toBeUndefined();
    expect(ttlRemainingMs(job(60, [{ type: 'Complete', status: 'False', lastTransitionTime: at }]), now)).toBeUndefined();
    expect(ttlRemainingMs(job(60, [{ type: 'Complete', status: 'True', lastTransitionTime: at }], true), now)).toBeUndefined();
    expect(ttlRemainingMs(job(60, [{ type: 'Complete', status: 'True' }]), now)).toBeUndefined();
    expect(needsCleanup(job(60, [{ type: 'Failed', status: 'True', lastTransitionTime: at }]))).toBe(true);
    expect(needsCleanup(job(undefined, [{ type: 'Failed', status: 'True', lastTransitionTime: at }]))).toBe(false);
  });
});
