import type { HistoryEntry, Operation, StoredItem, WatchRecord } from './history';
import { checkLinearizable } from './linearizability';
import { checkWatch } from './watch-checker';

/** One entry; `ret` Infinity for an answer that never came. */
const at = (client: number, call: number, ret: number, op: Operation): HistoryEntry => ({ client, call, return: ret, op });
const created = (key: string, value: string, rv: number): Operation => ({ type: 'create', key, value, outcome: { kind: 'ok', value: { rv } } });
const got = (key: string, item: StoredItem | null): Operation => ({ type: 'get', key, outcome: { kind: 'ok', value: item } });
const listed = (rv: number, items: StoredItem[]): Operation => ({ type: 'list', outcome: { kind: 'ok', value: { rv, items } } });
const updated = (key: string, value: string, expected: number, rv: number): Operation => ({
  type: 'update',
  key,
  value,
  expected,
  outcome: { kind: 'ok', value: { rv } },
});
const lostAnswer = (op: Operation): Operation => ({ ...op, outcome: { kind: 'unknown', error: 'connection reset' } });

describe('linearizability checker', () => {
  test('a sequential history whose reads follow its writes is linearizable', () => {
    const history = [
      at(0, 0, 1, created('a', 'c0-1', 5)),
      at(1, 2, 3, got('a', { key: 'a', value: 'c0-1', rv: 5 })),
      at(0, 4, 5, updated('a', 'c0-2', 5, 9)),
      at(1, 6, 7, listed(9, [{ key: 'a', value: 'c0-2', rv: 9 }])),
      at(2, 8, 9, { type: 'delete', key: 'a', expected: 9, outcome: { kind: 'ok', value: { rv: 10, value: 'c0-2' } } }),
      at(1, 10, 11, got('a', null)),
    ];
    expect(checkLinearizable(history).outcome).toBe('linearizable');
  });

  test('a read concurrent with a write may see either value', () => {
    const write = at(0, 0, 10, updated('a', 'c0-2', 5, 7));
    const initial = [{ key: 'a', value: 'c9-1', rv: 5 }];
    expect(checkLinearizable([write, at(1, 2, 3, got('a', { key: 'a', value: 'c9-1', rv: 5 }))], { initial }).outcome).toBe('linearizable');
    expect(checkLinearizable([write, at(1, 2, 3, got('a', { key: 'a', value: 'c0-2', rv: 7 }))], { initial }).outcome).toBe('linearizable');
  });

  test('a stale read is refused: a get after a write returned sees the old value', () => {
    const initial = [{ key: 'a', value: 'c9-1', rv: 5 }];
    const history = [at(0, 0, 1, updated('a', 'c0-2', 5, 7)), at(1, 2, 3, got('a', { key: 'a', value: 'c9-1', rv: 5 }))];
    const result = checkLinearizable(history, { initial });
    expect(result.outcome).toBe('not-linearizable');
    expect(result.reason).toContain('could not be placed');
  });

  test('a lost write is refused: a list after an acknowledged create does not show it', () => {
    const history = [at(0, 0, 1, created('a', 'c0-1', 5)), at(1, 2, 3, created('b', 'c1-1', 6)), at(2, 4, 5, listed(6, [{ key: 'b', value: 'c1-1', rv: 6 }]))];
    expect(checkLinearizable(history).outcome).toBe('not-linearizable');
  });

  test('revisions going back, a list at an older revision than a write before it, and two revisions of one write are refused', () => {
    expect(checkLinearizable([at(0, 0, 1, created('a', 'c0-1', 7)), at(1, 2, 3, created('b', 'c1-1', 6))]).outcome).toBe('not-linearizable');
    expect(checkLinearizable([at(0, 0, 1, created('a', 'c0-1', 7)), at(1, 2, 3, listed(6, [{ key: 'a', value: 'c0-1', rv: 7 }]))]).outcome).toBe(
      'not-linearizable',
    );
    const twice = checkLinearizable([at(0, 0, 1, created('a', 'c0-1', 7)), at(1, 2, 3, got('a', { key: 'a', value: 'c0-1', rv: 8 }))]);
    expect(twice).toMatchObject({ outcome: 'not-linearizable', reason: expect.stringContaining('one write, two revisions') as unknown });
  });

  test('a compare-and-swap that succeeded against a version already replaced is refused', () => {
    const initial = [{ key: 'a', value: 'c9-1', rv: 5 }];
    const history = [at(0, 0, 1, updated('a', 'c0-2', 5, 7)), at(1, 2, 3, updated('a', 'c1-2', 5, 8))];
    expect(checkLinearizable(history, { initial }).outcome).toBe('not-linearizable');
    const conflicted: Operation = { type: 'update', key: 'a', value: 'c1-2', expected: 5, outcome: { kind: 'fail', reason: 'conflict' } };
    expect(checkLinearizable([history[0], at(1, 2, 3, conflicted)], { initial }).outcome).toBe('linearizable');
  });

  test('a write whose answer was lost may have happened or not, but not both', () => {
    const lost = at(0, 0, Number.POSITIVE_INFINITY, lostAnswer(created('a', 'c0-1', 0)));
    expect(checkLinearizable([lost, at(1, 5, 6, got('a', { key: 'a', value: 'c0-1', rv: 5 }))]).outcome).toBe('linearizable');
    expect(checkLinearizable([lost, at(1, 5, 6, got('a', null))]).outcome).toBe('linearizable');
    const flip = [lost, at(1, 5, 6, got('a', { key: 'a', value: 'c0-1', rv: 5 })), at(1, 7, 8, got('a', null))];
    expect(checkLinearizable(flip).outcome).toBe('not-linearizable');
  });

  test('a generated history of 16 clients is linearizable, and refused once one of its reads is made stale', () => {
    const { history, initial } = simulate(20260101, 16, 6, 1_000);
    const good = checkLinearizable(history, { initial });
    expect(good.outcome).toBe('linearizable');
    expect(good.elapsedMs).toBeLessThan(10_000);
    // A get called after the update it saw had returned now reports the value that update replaced.
    const updates = new Map(
      history.flatMap((e) => (e.op.type === 'update' && e.op.outcome.kind === 'ok' ? [[e.op.value, { entry: e, op: e.op }] as const] : [])),
    );
    const index = history.findLastIndex((e) => {
      if (e.op.type !== 'get' || e.op.outcome.kind !== 'ok' || e.op.outcome.value === null) return false;
      const writer = updates.get(e.op.outcome.value.value);
      return writer !== undefined && writer.entry.return < e.call;
    });
    expect(index).toBeGreaterThan(0);
    const victim = history[index].op as Extract<Operation, { type: 'get' }>;
    const seen = (victim.outcome as { value: StoredItem }).value;
    const previous = updates.get(seen.value)!.op;
    const before = history
      .map((e) => e.op)
      .find((op) => (op.type === 'create' || op.type === 'update') && op.outcome.kind === 'ok' && op.outcome.value.rv === previous.expected);
    expect(before).toBeDefined();
    const stale = [...history];
    stale[index] = {
      ...history[index],
      op: { ...victim, outcome: { kind: 'ok', value: { key: seen.key, value: (before as { value: string }).value, rv: previous.expected } } },
    };
    expect(checkLinearizable(stale, { initial }).outcome).toBe('not-linearizable');
  });
});

test('the pruned search and the exhaustive one agree on small generated histories, intact and with one read changed', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const { history } = simulate(seed, 4, 3, 30);
    // Each read in turn reports the value of another write (or none): often impossible, sometimes not.
    const reads = history.flatMap((e, i) => (e.op.type === 'get' && e.op.outcome.kind === 'ok' ? [i] : []));
    const variants = [history];
    if (reads.length > 0) {
      const i = reads[seed % reads.length];
      const writes = history.flatMap((e) => ((e.op.type === 'create' || e.op.type === 'update') && e.op.outcome.kind === 'ok' ? [e.op] : []));
      const other = writes[seed % writes.length] as Extract<Operation, { type: 'create' }>;
      const op = history[i].op as Extract<Operation, { type: 'get' }>;
      const changed = [...history];
      changed[i] = {
        ...history[i],
        op: {
          ...op,
          outcome: {
            kind: 'ok',
            value: seed % 5 === 0 ? null : { key: op.key, value: other.value, rv: (other.outcome as { value: { rv: number } }).value.rv },
          },
        },
      };
      variants.push(changed);
    }
    for (const variant of variants) {
      expect([seed, checkLinearizable(variant).outcome]).toEqual([seed, checkLinearizable(variant, { exhaustive: true }).outcome]);
    }
    expect(checkLinearizable(history).outcome).toBe('linearizable');
  }
});

describe('watch checker', () => {
  const history = [at(0, 0, 1, created('a', 'c0-1', 5)), at(0, 2, 3, updated('a', 'c0-2', 5, 7)), at(1, 2, 3, created('b', 'c1-1', 6))];
  const good = (): WatchRecord => ({
    name: 'w',
    from: 4,
    initial: [],
    events: [
      { type: 'ADDED', key: 'a', value: 'c0-1', rv: 5 },
      { type: 'ADDED', key: 'b', value: 'c1-1', rv: 6 },
      { type: 'MODIFIED', key: 'a', value: 'c0-2', rv: 7 },
    ],
    final: {
      rv: 7,
      items: [
        { key: 'a', value: 'c0-2', rv: 7 },
        { key: 'b', value: 'c1-1', rv: 6 },
      ],
    },
  });

  test('a watch that sees every write once, in order, agreeing with the final state, passes', () => {
    expect(checkWatch(good(), history)).toEqual([]);
  });

  test('a duplicated event is refused', () => {
    const record = good();
    record.events.splice(2, 0, record.events[1]);
    expect(checkWatch(record, history)).toEqual(expect.arrayContaining([expect.stringContaining('delivered twice')]));
  });

  test('a missing acknowledged write, events out of order, and a final state the events do not give are refused', () => {
    const missing = good();
    missing.events.splice(1, 1);
    const problems = checkWatch(missing, history);
    expect(problems).toEqual(expect.arrayContaining([expect.stringContaining('never arrived'), expect.stringContaining('the events leave b=(absent)')]));
    const reordered = good();
    [reordered.events[0], reordered.events[1]] = [reordered.events[1], reordered.events[0]];
    expect(checkWatch(reordered, history)).toEqual(expect.arrayContaining([expect.stringContaining('out of order')]));
    const invented = good();
    invented.events.push({ type: 'MODIFIED', key: 'b', value: 'c7-7', rv: 8 });
    expect(checkWatch(invented, history)).toEqual(expect.arrayContaining([expect.stringContaining('no write of that value')]));
  });
});

/**
 * A history from a store that is linearizable by construction: each operation takes effect at a random
 * point inside its own interval, in that order, against a sequential store whose revision sometimes
 * skips (other writers); a few writes lose their answer (their effect stays).
 */
function simulate(seed: number, clients: number, keys: number, count: number): { history: HistoryEntry[]; initial: StoredItem[] } {
  let x = seed;
  const random = (): number => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const store = new Map<string, { value: string; rv: number }>();
  let revision = 10;
  const planned: Array<{ client: number; call: number; point: number; ret: number; run: () => Operation; lose: boolean }> = [];
  const clock = Array.from({ length: clients }, () => 0);
  const lastSeen = new Map<string, { value: string; rv: number }>();
  let serial = 0;
  for (let n = 0; n < count; n++) {
    const client = n % clients;
    const call = clock[client] + random() * 2;
    const point = call + random() * 3;
    const ret = point + random() * 3;
    clock[client] = ret;
    const key = `k${Math.floor(random() * keys)}`;
    const choice = random();
    const value = `c${client}-${serial++}`;
    const run = (): Operation => {
      const current = store.get(key);
      if (choice < 0.3) return got(key, current === undefined ? null : { key, ...current });
      if (choice < 0.4)
        return listed(
          revision,
          [...store.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => ({ key: k, ...v })),
        );
      const skip = random() < 0.2 ? 2 : 1;
      if (current === undefined) {
        revision += skip;
        store.set(key, { value: `${value}c`, rv: revision });
        return created(key, `${value}c`, revision);
      }
      if (choice < 0.85) {
        // A compare-and-swap against what this client saw last (maybe stale); a client that saw
        // nothing of the key reads it instead.
        const expected = lastSeen.get(`${client}/${key}`)?.rv;
        if (expected === undefined) return got(key, { key, ...current });
        if (expected !== current.rv) return { type: 'update', key, value: `${value}u`, expected, outcome: { kind: 'fail', reason: 'conflict' } };
        revision += skip;
        store.set(key, { value: `${value}u`, rv: revision });
        return updated(key, `${value}u`, expected, revision);
      }
      revision += skip;
      store.delete(key);
      return { type: 'delete', key, outcome: { kind: 'ok', value: { rv: revision, value: current.value } } };
    };
    planned.push({ client, call, point, ret, run, lose: random() < 0.01 });
  }
  const history: HistoryEntry[] = [];
  for (const p of [...planned].sort((a, b) => a.point - b.point)) {
    const op = p.run();
    const lose = p.lose && (op.type === 'create' || op.type === 'update') && op.outcome.kind === 'ok';
    // A client knows only what it was answered.
    if ('key' in op && op.outcome.kind === 'ok' && op.type !== 'delete' && !lose) {
      const item = op.type === 'get' ? op.outcome.value : op.type === 'create' || op.type === 'update' ? { value: op.value, rv: op.outcome.value.rv } : null;
      if (item !== null) lastSeen.set(`${p.client}/${op.key}`, { value: item.value, rv: item.rv });
    }
    history.push({ client: p.client, call: p.call, return: lose ? Number.POSITIVE_INFINITY : p.ret, op: lose ? lostAnswer(op) : op });
  }
  return { history, initial: [] };
}
