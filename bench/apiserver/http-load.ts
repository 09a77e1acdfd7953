import { processCpuMicros } from './child-processes';
import { closedLoop, type Side } from './closed-loop';
import type { HttpsTarget } from './https-client';
import { KeepAliveConnection } from './keep-alive-connection';

export interface HttpLoad {
  target: HttpsTarget;
  /** The serving process, whose CPU time is read at the window's edges. */
  pid: number;
  /** For error messages: `GET /path`. */
  label: string;
  /** The request bytes of one operation (see requestBytes); `window` counts this side's windows from 0. */
  request: (window: number, worker: number, sequence: number) => Buffer;
  expected: readonly number[];
}

/** A side of a comparison: the closed loop over one keep-alive connection per worker, opened before the clock starts. */
export function httpSide(load: HttpLoad, concurrency: number): Side {
  let windows = 0;
  return async (warmupMs, durationMs) => {
    const window = windows++;
    const connections = await Promise.all(Array.from({ length: concurrency }, () => KeepAliveConnection.open(load.target)));
    try {
      const cpuMicros = (): number | undefined => processCpuMicros(load.pid);
      return await closedLoop({ concurrency, warmupMs, durationMs, cpuMicros }, async (worker, sequence) => {
        const reply = await connections[worker].request(load.request(window, worker, sequence));
        if (!load.expected.includes(reply.status)) throw new Error(`${load.label} answered ${reply.status}: ${reply.bodyStart}`);
      });
    } finally {
      for (const connection of connections) connection.close();
    }
  };
}
