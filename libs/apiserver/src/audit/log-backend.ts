import type { AuditBackend } from './audit-backend';
import { legacyLine, type AuditEvent } from './audit-event';

export interface LogBackendOptions {
  format: 'json' | 'legacy';
  /** Group and version written into every event. */
  apiVersion: string;
  /** Receives whole lines, newline included; a promise when the lines are written later. */
  write(lines: string[]): void | Promise<void>;
  close?(): Promise<void>;
  onError?(error: unknown): void;
}

/** One line per event, JSON or Kubernetes' legacy text. A write that fails rejects the events. */
export function logBackend(options: LogBackendOptions): AuditBackend {
  return {
    processEvents(events) {
      let written: void | Promise<void>;
      try {
        const lines = events.map((event) => {
          const versioned = { ...event, apiVersion: options.apiVersion };
          return `${options.format === 'legacy' ? legacyLine(versioned) : JSON.stringify(versioned)}\n`;
        });
        written = options.write(lines);
      } catch (error) {
        options.onError?.(error);
        return false;
      }
      if (!written) return true;
      return written.then(
        () => true,
        (error: unknown) => {
          options.onError?.(error);
          return false;
        },
      );
    },
    async shutdown() {
      await options.close?.();
    },
  };
}

export type { AuditEvent };
