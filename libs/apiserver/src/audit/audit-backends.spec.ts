import { gunzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditBackend } from './audit-backend';
import { legacyLine, type AuditEvent } from './audit-event';
import { bufferedBackend } from './buffered-backend';
import { RotatingFile } from './rotating-file';
import { TRUNCATED_ANNOTATION, truncatingBackend } from './truncating-backend';

const event = (id: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'RequestResponse',
  auditID: id,
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/pods',
  verb: 'create',
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  sourceIPs: ['127.0.0.1'],
  userAgent: 'kubectl/v1.31\nforged',
  objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 201 },
  requestReceivedTimestamp: '2026-01-01T00:00:00.000001Z',
  stageTimestamp: '2026-01-01T00:00:00.000002Z',
  ...extra,
});

function recording(delay = 0): AuditBackend & { batches: AuditEvent[][] } {
  const batches: AuditEvent[][] = [];
  return {
    batches,
    processEvents(events) {
      batches.push(events);
      return delay ? new Promise((resolve) => setTimeout(() => resolve(true), delay)) : true;
    },
    shutdown: async () => undefined,
  };
}

describe('audit backends', () => {
  it('batch mode sends full batches at once, a partial one after the wait, and drops past the buffer', async () => {
    const sink = recording(50);
    const drops: number[] = [];
    const backend = bufferedBackend(sink, { bufferSize: 5, maxBatchSize: 2, maxBatchWaitMs: 100, onDrop: (n) => drops.push(n) });
    expect(backend.processEvents([event('1'), event('2')])).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sink.batches.map((b) => b.map((e) => e.auditID))).toEqual([['1', '2']]);
    // The sink is busy: the buffer holds 5, the rest is dropped at once, never waited for.
    const accepted = backend.processEvents(['3', '4', '5', '6', '7', '8', '9'].map((id) => event(id)));
    expect(accepted).toBe(false);
    expect(drops).toEqual([2]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sink.batches.map((b) => b.map((e) => e.auditID))).toEqual([['1', '2'], ['3', '4'], ['5', '6'], ['7']]);
    await backend.shutdown();
  });

  it('truncation drops the objects of a large event, discards one still too large, and splits batches', () => {
    const sink = recording();
    const discarded: string[] = [];
    const backend = truncatingBackend(sink, { maxEventSize: 1200, maxBatchSize: 1200, onDiscard: (e) => discarded.push(e.auditID) });
    const big = event('big', { requestObject: { data: 'x'.repeat(5000) } });
    const huge = event('huge', { annotations: { note: 'y'.repeat(5000) } });
    expect(backend.processEvents([event('a'), big, huge, event('b')])).toBe(false);
    expect(discarded).toEqual(['huge']);
    expect(sink.batches.map((b) => b.map((e) => e.auditID))).toEqual([['a', 'big'], ['b']]);
    expect(sink.batches[0][1].requestObject).toBeUndefined();
    expect(sink.batches[0][1].annotations).toEqual({ [TRUNCATED_ANNOTATION]: 'true' });
  });

  it('the legacy line quotes what a client sent, so it stays one line', () => {
    const line = legacyLine(event('id-1'));
    expect(line).toBe(
      '2026-01-01T00:00:00.000001Z AUDIT: id="id-1" stage="ResponseComplete" ip="127.0.0.1" method="create" user="alice" ' +
        'groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.31\\nforged" ' +
        'namespace="default" uri="/api/v1/namespaces/default/pods" response="201"',
    );
  });

  it('the log file rotates by size into timestamped gzipped backups, keeps maxbackup of them, and is private', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-log-'));
    try {
      const path = join(dir, 'audit.log');
      const file = new RotatingFile({ path, maxSizeMb: 1, maxBackups: 2, maxAgeDays: 0, compress: true });
      const line = `${'z'.repeat(1023)}\n`;
      for (let round = 0; round < 4; round++) {
        await file.append(Array.from({ length: 1024 }, () => line));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await file.close();
      const backups = readdirSync(dir).filter((n) => n !== 'audit.log');
      expect(backups).toHaveLength(2);
      for (const name of backups) expect(name).toMatch(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/);
      expect(gunzipSync(readFileSync(join(dir, backups[0]))).length).toBe(1024 * 1024);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(path).size).toBe(1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prunes rotated files older than --audit-log-maxage days by the time in their names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-log-'));
    try {
      const old = join(dir, 'audit-2020-01-01T00-00-00.000.log');
      const unrelated = join(dir, 'notes-2020-01-01T00-00-00.000.log');
      writeFileSync(old, 'old\n');
      writeFileSync(unrelated, 'keep\n');
      const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxBackups: 0, maxAgeDays: 1, compress: false });
      await file.append([`${'a'.repeat(1024 * 1024 - 1)}\n`, 'next\n']);
      await file.close();
      const names = readdirSync(dir).sort();
      expect(names).toHaveLength(3);
      expect(names).toContain('notes-2020-01-01T00-00-00.000.log');
      expect(names).not.toContain('audit-2020-01-01T00-00-00.000.log');
      expect(readFileSync(join(dir, 'audit.log'), 'utf8')).toBe('next\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
