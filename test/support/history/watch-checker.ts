import type { HistoryEntry, WatchRecord } from './history';

/**
 * What every watch must give, as etcd's robustness tests check it: revisions strictly increasing (in
 * order, none twice), each event a real write (its value written by a create or update of the history
 * at that revision, ADDED for a create, MODIFIED for an update, DELETED showing the last value), no
 * acknowledged write of the range after the start missing, and the events applied to the state at the
 * start giving the state of the final list. Returns the problems found (none: the watch is right).
 */
export function checkWatch(record: WatchRecord, history: readonly HistoryEntry[]): string[] {
  const problems: string[] = [];
  const writes = new Map<string, { type: 'create' | 'update'; rv?: number }>();
  const acknowledged = new Map<number, string>();
  for (const { op } of history) {
    if (op.type === 'create' || op.type === 'update') {
      writes.set(op.value, { type: op.type, rv: op.outcome.kind === 'ok' ? op.outcome.value.rv : undefined });
      if (op.outcome.kind === 'ok') acknowledged.set(op.outcome.value.rv, `${op.type} ${op.key}=${op.value}`);
    } else if (op.type === 'delete' && op.outcome.kind === 'ok' && op.outcome.value.rv !== undefined) {
      acknowledged.set(op.outcome.value.rv, `delete ${op.key}`);
    }
  }

  const state = new Map(record.initial.map((i) => [i.key, i.value]));
  let last = record.from;
  const seen = new Set<number>();
  for (const event of record.events) {
    const where = `${record.name}: ${event.type} ${event.key}=${event.value} at ${event.rv}`;
    if (seen.has(event.rv)) problems.push(`${where} delivered twice`);
    else if (event.rv <= last) problems.push(`${where} out of order (after ${last})`);
    seen.add(event.rv);
    last = Math.max(last, event.rv);
    const current = state.get(event.key);
    if (event.type === 'DELETED') {
      if (current === undefined) problems.push(`${where}: the key was absent`);
      else if (current !== event.value) problems.push(`${where}: the last value was ${current}`);
      state.delete(event.key);
      continue;
    }
    const write = writes.get(event.value);
    if (write === undefined) problems.push(`${where}: no write of that value`);
    else {
      if (write.rv !== undefined && write.rv !== event.rv) problems.push(`${where}: that write took revision ${write.rv}`);
      if ((write.type === 'create') !== (event.type === 'ADDED'))
        problems.push(`${where}: the value was written by ${write.type === 'create' ? 'a create' : 'an update'}`);
    }
    if (event.type === 'ADDED' && current !== undefined) problems.push(`${where}: the key existed (${current})`);
    if (event.type === 'MODIFIED' && current === undefined) problems.push(`${where}: the key was absent`);
    state.set(event.key, event.value);
  }
  for (const [rv, what] of acknowledged) {
    if (rv > record.from && rv <= record.final.rv && !seen.has(rv)) problems.push(`${record.name}: the acknowledged ${what} at ${rv} never arrived`);
  }
  const final = new Map(record.final.items.map((i) => [i.key, i.value]));
  const keys = new Set([...final.keys(), ...state.keys()]);
  for (const key of keys) {
    if (final.get(key) !== state.get(key)) {
      problems.push(
        `${record.name}: the events leave ${key}=${state.get(key) ?? '(absent)'}, the store has ${final.get(key) ?? '(absent)'} at ${record.final.rv}`,
      );
    }
  }
  return problems;
}
