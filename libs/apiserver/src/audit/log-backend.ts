import type { AuditBackend } from './audit-backend';
import { legacyLine, type AuditEvent } from './audit-event';

export interface LogBackendOptions {
  format: 'json' | 'legacy';
  /** Group and version written into every event. */
  apiVersion: string;
  /** Receives whole lines, newline included. */
  write(text: string): void;
  close?(): Promise<void>;
  onError?(error: unknown): void;
}

/** One line per event, JSON or Kubernetes' legacy text. A write that fails rejects the events. */
export function logBackend(options: LogBackendOptions): AuditBackend {
  return {
    processEvents(events) {
      try {
        // Line by line, so that rotation by size never splits a batch's line across files.
        for (const event of events) {
          const versioned = { ...event, apiVersion: options.apiVersion };
          options.write(`${options.format === 'legacy' ? legacyLine(versioned) : JSON.stringify(versioned)}\n`);
        }
        return true;
      } catch (error) {
        options.onError?.(error);
        return false;
      }
    },
    async shutdown() {
      await options.close?.();
    },
  };
}

export type { AuditEvent };
