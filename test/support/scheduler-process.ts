import type { ApiServerProcess } from './apiserver-process';
import { startComponentProcess, type ComponentProcess } from './component-process';

export type SchedulerProcess = ComponentProcess;

/** Runs the built `svc-scheduler` against an API server process and resolves once /readyz answers 200. */
export function startSchedulerProcess(apiserver: ApiServerProcess, args: string[] = [], readyTimeoutMs = 30_000): Promise<SchedulerProcess> {
  return startComponentProcess('svc-scheduler', apiserver, args, readyTimeoutMs);
}
