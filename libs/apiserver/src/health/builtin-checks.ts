import { healthCheck } from './health-check';
import type { HealthCheck } from './health-check';

export function pingCheck(): HealthCheck {
  return healthCheck('ping', () => undefined);
}

// Kubernetes' `log` check fails when logging has stalled; here a stderr that stays blocked a minute.
const LOG_STALL_MS = 60_000;

export function logCheck(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean; destroyed?: boolean } = process.stderr): HealthCheck {
  let blockedSince: number | undefined;
  return healthCheck('log', () => {
    if (stream.destroyed) throw new Error('the log stream is closed');
    if (!stream.writableNeedDrain) {
      blockedSince = undefined;
      return;
    }
    blockedSince ??= Date.now();
    if (Date.now() - blockedSince > LOG_STALL_MS) throw new Error('the log stream has been blocked for over a minute');
  });
}
