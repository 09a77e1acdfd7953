import { podDisruptionChanged } from './pod-disruption-changes';
import { pod } from './pod-fixture';

describe('podDisruptionChanged', () => {
  it('wakes budgets for labels, deletion, readiness and controller changes only', () => {
    expect(podDisruptionChanged(pod('1'), pod('1', { ready: false }))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2'))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2', { phase: 'Pending' }))).toBe(false);
    expect(podDisruptionChanged(pod('1'), pod('2', { labels: { app: 'db' } }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { ready: false }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { deleting: true }))).toBe(true);
    expect(podDisruptionChanged(pod('1'), pod('2', { owner: 'rs' }))).toBe(true);
  });
});
