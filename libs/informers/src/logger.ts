import { errorMessage } from '@svc/machinery';
/** Where informers report what they cannot throw: handler failures, lost watches, relists. */
export interface InformerLogger {
  info(message: string): void;
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
}

function describe(error: unknown): string {
  if (error === undefined) return '';
  return `: ${errorMessage(error)}`;
}

/** Writes one line per message to stderr. */
export const consoleInformerLogger: InformerLogger = {
  info: (message) => process.stderr.write(`informers: ${message}\n`),
  warn: (message, error) => process.stderr.write(`informers: ${message}${describe(error)}\n`),
  error: (message, error) => process.stderr.write(`informers: ${message}${describe(error)}\n`),
};

/** Drops everything (tests that assert on behaviour, not on log lines). */
export const silentInformerLogger: InformerLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
