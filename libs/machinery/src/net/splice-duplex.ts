import type { Duplex } from 'node:stream';

/** How long a side may take to take in what is still queued for it once the other side has closed. */
const DEFAULT_LINGER_MS = 10_000;

/**
 * Joins two connections byte for byte, both ways, as a proxy does after an upgrade. When one side
 * closes, the other is ended rather than destroyed: what is still queued for it (the last output of
 * an exec, its exit status) is written out first, and it is destroyed only if it has not closed
 * `lingerMs` later. An error on either side closes that side, which ends the other the same way.
 */
export function spliceDuplex(a: Duplex, b: Duplex, lingerMs = DEFAULT_LINGER_MS): void {
  a.pipe(b);
  b.pipe(a);
  const endAfterFlush = (other: Duplex) => {
    if (other.destroyed) return;
    if (!other.writableEnded) other.end();
    const timer = setTimeout(() => other.destroy(), lingerMs);
    timer.unref();
    other.once('close', () => clearTimeout(timer));
  };
  a.once('close', () => endAfterFlush(b));
  b.once('close', () => endAfterFlush(a));
  a.on('error', () => a.destroy());
  b.on('error', () => b.destroy());
}
