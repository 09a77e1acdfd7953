import { errorMessage } from '@svc/machinery';

/**
 * Ends the process cleanly on SIGTERM or SIGINT: `close` (the app, its manager), then exit 0; a
 * second signal exits at once with 1. Not Nest's enableShutdownHooks: once closed it re-raises the
 * signal to end the process, which the kernel ignores for PID 1 (a container's process), so the
 * process would end only when its last handle closed, or be killed at `docker stop`'s timeout.
 */
export function exitOnSignals(name: string, close: () => Promise<void>): void {
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) process.exit(1);
    stopping = true;
    await close();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stop().catch((err: unknown) => {
        process.stderr.write(`${name}: stopping failed: ${errorMessage(err)}\n`);
        process.exit(1);
      });
    });
  }
}
