import { EXPECTATIONS_TIMEOUT_MS, Expectations, KeyExpectations } from './expectations';

const pod = (name: string) => ({ metadata: { namespace: 'ns', name } });

describe('Expectations', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000;
  });

  it('is satisfied with nothing awaited, and once every creation awaited was observed', () => {
    const e = new Expectations(clock);
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/rs', 2);
    expect(e.satisfied('ns/rs')).toBe(false);
    expect(e.satisfied('ns/other')).toBe(true);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(false);
    // A failed create is lowered the same way: it will never be observed.
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
    // More observations than expected (pods made by someone else) do not carry over to the next round.
    e.creationObserved('ns/rs');
    e.expectCreations('ns/rs', 1);
    expect(e.satisfied('ns/rs')).toBe(false);
  });

  it('awaits the deletion of the very objects it deleted, not of any', () => {
    const e = new Expectations(clock);
    e.expectDeletions('ns/rs', [pod('a'), pod('b')]);
    e.deletionObserved('ns/rs', pod('c'));
    expect(e.satisfied('ns/rs')).toBe(false);
    e.deletionObserved('ns/rs', pod('a'));
    e.deletionObserved('ns/rs', pod('a'));
    expect(e.satisfied('ns/rs')).toBe(false);
    e.deletionObserved('ns/rs', pod('b'));
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  it('lapses after five minutes, and says when', () => {
    const e = new Expectations(clock);
    e.expectCreations('ns/rs', 3);
    now += 60_000;
    expect(e.expiresInMs('ns/rs')).toBe(EXPECTATIONS_TIMEOUT_MS - 60_000);
    now += EXPECTATIONS_TIMEOUT_MS - 60_000;
    expect(e.satisfied('ns/rs')).toBe(true);
    expect(e.expiresInMs('ns/rs')).toBeUndefined();
  });

  it('forgets a key whose object is gone; a key view acts on its own key only', () => {
    const e = new Expectations(clock);
    const view = new KeyExpectations(e, 'ns/rs');
    view.expectCreations(1);
    new KeyExpectations(e, 'ns/other').creationObserved();
    expect(view.satisfied()).toBe(false);
    e.forget('ns/rs');
    expect(view.satisfied()).toBe(true);
    expect(e.size).toBe(0);
  });
});
