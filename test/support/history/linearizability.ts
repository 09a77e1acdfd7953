import type { HistoryEntry, Operation, StoredItem } from './history';

/**
 * A linearizability checker for histories of get, list, create, update (a compare-and-swap on
 * resourceVersion) and delete through the API, in the manner of porcupine (Wing & Gong's search with
 * Lowe's cache of visited configurations), against a model of the WHOLE store: revisions are global
 * and a list spans every key, so the history is not split by key.
 *
 * The model's state is the value of each key and a lower bound on the store's revision:
 * - a write answered with revision R took R, and R must be greater than the state's revision (the
 *   store's revisions grow in linearization order); other writers of the store (leases, events) take
 *   revisions too, so revisions may skip, and a bound is all the model keeps;
 * - a list answered at revision L shows exactly the state, and L is not below the state's revision;
 * - a get shows the key's current value (or its absence);
 * - a write whose answer never came (a failure, a timeout) may have happened, once, at any point after
 *   its call, or never: the model forks into both (a set of states, as porcupine's power-set models).
 * Values are unique per write, so a value stands for the write that made it, and a resourceVersion a
 * client compares against names the value it read.
 */
export interface CheckResult {
  outcome: 'linearizable' | 'not-linearizable' | 'timeout';
  /** Why not, in words. */
  reason?: string;
  /** How many operations were checked (failed reads are left out: they constrain nothing). */
  operations: number;
  elapsedMs: number;
}

export interface CheckOptions {
  /** The store's contents when the history began (default empty). */
  initial?: readonly StoredItem[];
  /** The revision the history began at (a lower bound). */
  initialRevision?: number;
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Search without the forced-frame pruning (slower; to check the pruning against). */
  exhaustive?: boolean;
}

interface State {
  rev: number;
  /** key -> value, kept sorted by key for hashing. */
  objects: ReadonlyMap<string, string>;
  hash: string;
}

interface Knowledge {
  rvOfValue: Map<string, number>;
  valueOfRv: Map<number, string>;
}

function makeState(rev: number, objects: ReadonlyMap<string, string>): State {
  const keys = [...objects.keys()].sort();
  return { rev, objects, hash: `${rev}|${keys.map((k) => `${k}=${objects.get(k)}`).join(',')}` };
}

function withObject(s: State, rev: number, key: string, value: string | undefined): State {
  const next = new Map(s.objects);
  if (value === undefined) next.delete(key);
  else next.set(key, value);
  return makeState(rev, next);
}

/** What the history says about each value's revision; a contradiction is reported at once. */
function learn(entries: readonly HistoryEntry[], initial: readonly StoredItem[]): Knowledge | string {
  const rvOfValue = new Map<string, number>();
  const valueOfRv = new Map<number, string>();
  const note = (value: string, rv: number): string | undefined => {
    const known = rvOfValue.get(value);
    if (known !== undefined && known !== rv) return `value ${value} seen at revision ${known} and at ${rv}: one write, two revisions`;
    const other = valueOfRv.get(rv);
    if (other !== undefined && other !== value) return `revision ${rv} holds ${other} and ${value}: two writes, one revision`;
    rvOfValue.set(value, rv);
    valueOfRv.set(rv, value);
    return undefined;
  };
  const problems: Array<string | undefined> = initial.map((item) => note(item.value, item.rv));
  for (const { op } of entries) {
    if (op.outcome.kind !== 'ok') continue;
    if (op.type === 'create' || op.type === 'update') problems.push(note(op.value, op.outcome.value.rv));
    else if (op.type === 'get' && op.outcome.value !== null) problems.push(note(op.outcome.value.value, op.outcome.value.rv));
    else if (op.type === 'list') for (const item of op.outcome.value.items) problems.push(note(item.value, item.rv));
  }
  return problems.find((p) => p !== undefined) ?? { rvOfValue, valueOfRv };
}

/** The states an operation may lead to from `s`; none when its outcome is impossible there. */
function step(s: State, op: Operation, k: Knowledge): State[] {
  switch (op.type) {
    case 'get': {
      if (op.outcome.kind !== 'ok') return [s];
      const seen = op.outcome.value;
      const current = s.objects.get(op.key);
      return (seen === null ? current === undefined : current === seen.value) ? [s] : [];
    }
    case 'list': {
      if (op.outcome.kind !== 'ok') return [s];
      const { rv, items } = op.outcome.value;
      if (rv < s.rev || items.length !== s.objects.size) return [];
      for (const item of items) if (s.objects.get(item.key) !== item.value) return [];
      return [rv === s.rev ? s : makeState(rv, s.objects)];
    }
    case 'create': {
      const current = s.objects.get(op.key);
      const o = op.outcome;
      if (o.kind === 'ok') return current === undefined && o.value.rv > s.rev ? [withObject(s, o.value.rv, op.key, op.value)] : [];
      if (o.kind === 'fail') return o.reason === 'exists' && current !== undefined ? [s] : [];
      if (current !== undefined) return [s];
      return [s, ...applied(s, op.key, op.value, k)];
    }
    case 'update': {
      const current = s.objects.get(op.key);
      const matches = current !== undefined && current === k.valueOfRv.get(op.expected);
      const o = op.outcome;
      if (o.kind === 'ok') return matches && o.value.rv > s.rev ? [withObject(s, o.value.rv, op.key, op.value)] : [];
      if (o.kind === 'fail') {
        if (o.reason === 'notfound') return current === undefined ? [s] : [];
        return o.reason === 'conflict' && current !== undefined && !matches ? [s] : [];
      }
      return matches ? [s, ...applied(s, op.key, op.value, k)] : [s];
    }
    case 'delete': {
      const current = s.objects.get(op.key);
      const matches = current !== undefined && (op.expected === undefined || current === k.valueOfRv.get(op.expected));
      const o = op.outcome;
      if (o.kind === 'ok') {
        const { rv, value } = o.value;
        if (!matches || (value !== undefined && current !== value) || (rv !== undefined && rv <= s.rev)) return [];
        return [withObject(s, rv ?? s.rev + 1, op.key, undefined)];
      }
      if (o.kind === 'fail') {
        if (o.reason === 'notfound') return current === undefined ? [s] : [];
        return o.reason === 'conflict' && current !== undefined && !matches ? [s] : [];
      }
      return matches ? [s, withObject(s, s.rev + 1, op.key, undefined)] : [s];
    }
  }
}

/** A write of unknown outcome that did happen: at its revision if any read saw it, else at some revision above the state's. */
function applied(s: State, key: string, value: string, k: Knowledge): State[] {
  const rv = k.rvOfValue.get(value);
  if (rv === undefined) return [withObject(s, s.rev + 1, key, value)];
  return rv > s.rev ? [withObject(s, rv, key, value)] : [];
}

function stepAll(states: readonly State[], op: Operation, k: Knowledge): State[] {
  const next = new Map<string, State>();
  for (const s of states) for (const n of step(s, op, k)) next.set(n.hash, n);
  return [...next.values()];
}

function setHash(states: readonly State[]): string {
  return states
    .map((s) => s.hash)
    .sort()
    .join(';');
}

interface Node {
  /** Index into the checked operations. */
  id: number;
  isCall: boolean;
  time: number;
  match?: Node;
  prev?: Node;
  next?: Node;
}

export function describeOperation(entry: HistoryEntry): string {
  const { op } = entry;
  const outcome =
    op.outcome.kind === 'ok' ? JSON.stringify(op.outcome.value) : op.outcome.kind === 'fail' ? op.outcome.reason : `unknown (${op.outcome.error})`;
  const args =
    'key' in op ? `${op.key}${'value' in op ? `=${op.value}` : ''}${'expected' in op && op.expected !== undefined ? ` if rv ${op.expected}` : ''}` : '';
  return `client ${entry.client} ${op.type} ${args} -> ${outcome} [${entry.call.toFixed(1)}, ${entry.return === Number.POSITIVE_INFINITY ? '∞' : entry.return.toFixed(1)}] ms`;
}

export function checkLinearizable(history: readonly HistoryEntry[], options: CheckOptions = {}): CheckResult {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const initial = options.initial ?? [];
  // A read that failed says nothing.
  const entries = history.filter((e) => !((e.op.type === 'get' || e.op.type === 'list') && e.op.outcome.kind === 'unknown'));
  const result = (outcome: CheckResult['outcome'], reason?: string): CheckResult => ({
    outcome,
    reason,
    operations: entries.length,
    elapsedMs: performance.now() - started,
  });
  const knowledge = learn(entries, initial);
  if (typeof knowledge === 'string') return result('not-linearizable', knowledge);

  // Calls and returns in time order; at equal times calls first, so that touching operations count as concurrent.
  const nodes: Node[] = [];
  entries.forEach((e, id) => {
    const call: Node = { id, isCall: true, time: e.call };
    const ret: Node = { id, isCall: false, time: e.return, match: undefined };
    call.match = ret;
    nodes.push(call, ret);
  });
  nodes.sort((a, b) => a.time - b.time || (a.isCall === b.isCall ? a.id - b.id : a.isCall ? -1 : 1));
  const head: Node = { id: -1, isCall: false, time: Number.NEGATIVE_INFINITY };
  let tail = head;
  for (const n of nodes) {
    tail.next = n;
    n.prev = tail;
    tail = n;
  }
  const lift = (call: Node): void => {
    call.prev!.next = call.next;
    if (call.next) call.next.prev = call.prev;
    const ret = call.match!;
    ret.prev!.next = ret.next;
    if (ret.next) ret.next.prev = ret.prev;
  };
  const unlift = (call: Node): void => {
    const ret = call.match!;
    ret.prev!.next = ret;
    if (ret.next) ret.next.prev = ret;
    call.prev!.next = call;
    if (call.next) call.next.prev = call;
  };

  // Zobrist hashing of the set of linearized operations.
  const zobrist = entries.map(() => [(Math.random() * 2 ** 32) >>> 0, (Math.random() * 2 ** 32) >>> 0] as const);
  let zLow = 0;
  let zHigh = 0;
  const cache = new Set<string>();
  const initialRev = Math.max(options.initialRevision ?? 0, ...initial.map((i) => i.rv));
  let states: State[] = [makeState(initialRev, new Map(initial.map((i) => [i.key, i.value])))];
  // A frame is forced when its operation has a definite answer and left the states as they were (a
  // read that matched, a refused write): such an operation changes no state wherever it is placed, so
  // placing it at once loses no linearization, and the search never tries the alternatives of a
  // forced frame. (A write of unknown outcome may be a no-op here and not later: never forced.)
  const stack: Array<{ call: Node; states: State[]; forced: boolean }> = [];
  let deepest = 0;
  let stuckAt: Node | undefined;
  let entry = head.next;
  let steps = 0;
  while (head.next !== undefined) {
    if (++steps % 4096 === 0 && performance.now() - started > timeoutMs) {
      return result('timeout', `gave up after ${timeoutMs} ms with ${deepest} of ${entries.length} operations linearized`);
    }
    if (entry === undefined) throw new Error('linearizability search ran off the end of the history');
    if (entry.isCall) {
      const next = stepAll(states, entries[entry.id].op, knowledge);
      const z = zobrist[entry.id];
      const key = `${(zLow ^ z[0]) >>> 0}:${(zHigh ^ z[1]) >>> 0}:${next.length > 0 ? setHash(next) : ''}`;
      if (next.length > 0 && !cache.has(key)) {
        cache.add(key);
        stack.push({
          call: entry,
          states,
          forced: !options.exhaustive && entries[entry.id].op.outcome.kind !== 'unknown' && setHash(states) === setHash(next),
        });
        states = next;
        zLow = (zLow ^ z[0]) >>> 0;
        zHigh = (zHigh ^ z[1]) >>> 0;
        lift(entry);
        if (stack.length > deepest) deepest = stack.length;
        entry = head.next;
      } else {
        entry = entry.next;
      }
      continue;
    }
    // A return: the operation it ends must be linearized before anything that follows. Go back.
    if (stack.length === deepest) stuckAt = entry;
    for (;;) {
      const top = stack.pop();
      if (top === undefined) {
        const stuck = stuckAt === undefined ? '' : `; the operation that could not be placed: ${describeOperation(entries[stuckAt.id])}`;
        return result('not-linearizable', `no order of the operations agrees with their answers (${deepest} of ${entries.length} placed at most)${stuck}`);
      }
      states = top.states;
      const z = zobrist[top.call.id];
      zLow = (zLow ^ z[0]) >>> 0;
      zHigh = (zHigh ^ z[1]) >>> 0;
      unlift(top.call);
      entry = top.call.next;
      if (!top.forced) break;
    }
  }
  return result('linearizable');
}
