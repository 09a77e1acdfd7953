import type { EventRecorder } from '@svc/runtime';
import { RateLimitedEvents } from './rate-limited-events';

function fakeRecorder() {
  const written: string[] = [];
  const event = async (_obj: unknown, _type: string, _reason: string, message: string) => void written.push(message);
  const recorder = { event } as unknown as EventRecorder;
  return { recorder, written };
}

describe('RateLimitedEvents', () => {
  it('lets each object have a burst of events, then one more per refill period', async () => {
    let now = 0;
    const { recorder, written } = fakeRecorder();
    const events = new RateLimitedEvents(recorder, { burst: 3, refillMs: 1000, now: () => now });
    const rs = { metadata: { uid: 'a' } };
    const other = { metadata: { uid: 'b' } };
    const sent = Array.from({ length: 5 }, (_, i) => events.emit(rs, 'Normal', 'SuccessfulCreate', `a${i}`));
    expect(sent).toEqual([true, true, true, false, false]);
    expect(events.emit(other, 'Normal', 'SuccessfulCreate', 'b0')).toBe(true);
    now = 1500;
    expect(events.emit(rs, 'Normal', 'SuccessfulCreate', 'a5')).toBe(true);
    expect(events.emit(rs, 'Normal', 'SuccessfulCreate', 'a6')).toBe(false);
    await events.flush();
    expect(written).toEqual(['a0', 'a1', 'a2', 'b0', 'a5']);
  });

  it('forgets objects beyond its size, so that memory stays bounded', () => {
    const { recorder } = fakeRecorder();
    const events = new RateLimitedEvents(recorder, { burst: 1, maxObjects: 2, now: () => 0 });
    for (const uid of ['a', 'b', 'c']) expect(events.emit({ metadata: { uid } }, 'Normal', 'R', 'm')).toBe(true);
    // 'a' was the oldest and was dropped: it starts with a full budget again.
    expect(events.emit({ metadata: { uid: 'a' } }, 'Normal', 'R', 'm')).toBe(true);
  });
});
