import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { kubectl, spawnKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent log rotation tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

const MAX_SIZE = 64 * 1024;
const MAX_FILES = 3;
const ROTATED = /^0\.log\.\d{8}-\d{6}$/;
const COMPRESSED = /^0\.log\.\d{8}-\d{6}\.gz$/;

describeWithRuntime('node agent: container log rotation (containerLogMaxSize, containerLogMaxFiles)', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();

  beforeAll(async () => {
    cluster = await startNodeCluster({
      agent: { config: { containerLogMaxSize: '64Ki', containerLogMaxFiles: MAX_FILES, containerLogMonitorInterval: '3s' } },
    });
    // About 8 KB a second of numbered lines: a rotation every few seconds at this maximum size.
    const pad = 'x'.repeat(100);
    await cluster.runPod('writer', ['sh', '-c', `i=0; while true; do i=$((i+1)); echo "line $i ${pad}"; usleep 15000; done`]);
    await eventually(async () => expect((await cluster.getPod('writer')).status.phase).toBe('Running'), 30_000, 250);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('rotates 0.log past the size, asks the runtime to reopen it, gzips older files and keeps at most maxFiles', async () => {
    const pod = await cluster.getPod('writer');
    const dir = join(cluster.agent.rootDir, 'pod-logs', `default_writer_${pod.metadata.uid}`, 'writer');
    const follow = spawnKubectl(['logs', '-f', 'writer'], env(), 120_000);
    const stamps = new Set<string>();
    let largest = 0;
    try {
      const deadline = Date.now() + 90_000;
      // Until the oldest rotated files have been removed: more rotations seen than maxFiles - 1 can hold.
      for (;;) {
        const names = (await readdir(dir)).sort();
        // A compression in flight (the `.tmp` being written, or the original beside its finished `.gz` for
        // the moment before it is removed) is not a settled state: look again.
        if (names.some((n) => n.endsWith('.tmp') || names.includes(`${n}.gz`))) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        let total = 0;
        for (const name of names)
          total += await stat(join(dir, name)).then(
            (s) => s.size,
            () => 0,
          );
        largest = Math.max(largest, total);
        expect(names.length).toBeLessThanOrEqual(MAX_FILES);
        expect(names.every((n) => n === '0.log' || ROTATED.test(n) || COMPRESSED.test(n))).toBe(true);
        // The newest rotated file uncompressed, the older ones compressed.
        expect(names.filter((n) => ROTATED.test(n)).length).toBeLessThanOrEqual(1);
        for (const name of names) if (name !== '0.log') stamps.add(name.replace(/\.gz$/, ''));
        if (stamps.size >= MAX_FILES + 1 && names.some((n) => COMPRESSED.test(n)) && names.some((n) => ROTATED.test(n))) break;
        if (Date.now() > deadline) throw new Error(`only ${stamps.size} rotations: ${names.join(', ')}\n${cluster.agent.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(largest).toBeLessThanOrEqual(MAX_SIZE * MAX_FILES);
      const names = (await readdir(dir)).sort();
      // A rotated file holds the CRI lines as written; the compressed one too, and older.
      const rotated = (
        await readFile(
          join(
            dir,
            names.find((n) => ROTATED.test(n))!,
          ),
          'utf8',
        )
      )
        .trim()
        .split('\n');
      const compressed = gunzipSync(
        await readFile(
          join(
            dir,
            names.find((n) => COMPRESSED.test(n))!,
          ),
        ),
      )
        .toString('utf8')
        .trim()
        .split('\n');
      const number = (line: string) => Number(/ F line (\d+) /.exec(line)?.[1]);
      expect(rotated[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z stdout F line \d+ x+$/);
      expect(number(compressed[compressed.length - 1]) + 1).toBe(number(rotated[0]));
      // The runtime writes to the new 0.log, which kubectl logs reads, whole and as a tail.
      const current = (await kubectl(['logs', 'writer'], env())).stdout.trim().split('\n');
      expect(Number(/^line (\d+) /.exec(current[0])?.[1])).toBeGreaterThan(number(rotated[rotated.length - 1]));
      const tail = (await kubectl(['logs', 'writer', '--tail=2'], env())).stdout.trim().split('\n');
      expect(tail).toHaveLength(2);
      expect(Number(/^line (\d+) /.exec(tail[0])?.[1]) + 1).toBe(Number(/^line (\d+) /.exec(tail[1])?.[1]));
      // kubectl logs -f started before the rotations went on across them, without a gap. It may
      // still be catching up on the new 0.log: wait (bounded) for a line past the rotated file.
      const lastRotated = number(rotated[rotated.length - 1]);
      const followedPast = () => new RegExp(`^line (${lastRotated + 1}) `, 'm').test(follow.output());
      for (const until = Date.now() + 15_000; !followedPast() && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const out = follow.output();
      const followed = out
        .slice(0, out.lastIndexOf('\n'))
        .split('\n')
        .map((l) => Number(/^line (\d+) /.exec(l)?.[1]));
      expect(followed[followed.length - 1]).toBeGreaterThan(lastRotated);
      for (let i = 1; i < followed.length; i++) expect(followed[i]).toBe(followed[i - 1] + 1);
    } finally {
      await follow.stop();
    }
  }, 120_000);
});
