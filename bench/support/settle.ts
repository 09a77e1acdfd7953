import { cpus } from 'node:os';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Busy and total CPU time of the whole machine so far (every core), from `os.cpus()`. */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/**
 * Waits until the machine is quiet (busy under `maxBusy` of its CPU over a `windowMs` window) or
 * `timeoutMs` passed, so that a phase does not pay for the work its predecessor left behind (a
 * runtime's teardown, a server's start); resolves the busy share of the last window.
 */
export async function settle(maxBusy = 0.15, windowMs = 500, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = cpuTimes();
    await sleep(windowMs);
    const after = cpuTimes();
    const busy = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    if (busy <= maxBusy || Date.now() > deadline) return busy;
  }
}
