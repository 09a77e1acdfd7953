/** Shortest span a rate is taken over: closer readings carry too much of the reading's own jitter. */
const MIN_SPAN_MS = 1_000;

interface Reading {
  usageNanos: number;
  time: number;
  rate?: number;
}

/**
 * CPU use in nanocores (`usageNanoCores`) from cumulative readings, as cAdvisor derives it: the
 * increase since the previous reading of the same cgroup over the time between them. A reading
 * less than a second after the last keeps the last rate; a counter that went back (the cgroup was
 * made anew) starts over. Keys not read in `forget` go.
 */
export class CpuRate {
  private readonly readings = new Map<string, Reading>();

  /** The rate at this reading, or undefined until there are two far enough apart. */
  observe(key: string, usageNanos: number, time: number): number | undefined {
    const last = this.readings.get(key);
    if (!last || usageNanos < last.usageNanos || time < last.time) {
      this.readings.set(key, { usageNanos, time });
      return undefined;
    }
    if (time - last.time < MIN_SPAN_MS) return last.rate;
    const rate = Math.round(((usageNanos - last.usageNanos) * 1000) / (time - last.time));
    this.readings.set(key, { usageNanos, time, rate });
    return rate;
  }

  /** Drops the readings of keys not in `live` (cgroups that went). */
  forget(live: ReadonlySet<string>): void {
    for (const key of this.readings.keys()) if (!live.has(key)) this.readings.delete(key);
  }
}
