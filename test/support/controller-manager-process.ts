import type { ApiServerProcess } from './apiserver-process';
import { startComponentProcess, type ComponentProcess } from './component-process';

export type ControllerManagerProcess = ComponentProcess;

/**
 * Runs the built `svc-controller-manager` against an API server process, serving its probes on a
 * free loopback port, and resolves once /readyz answers 200 (informers synced).
 */
export function startControllerManagerProcess(apiserver: ApiServerProcess, args: string[] = [], readyTimeoutMs = 30_000): Promise<ControllerManagerProcess> {
  return startComponentProcess('svc-controller-manager', apiserver, args, readyTimeoutMs);
}
