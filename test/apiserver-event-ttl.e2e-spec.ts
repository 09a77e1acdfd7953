import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// `--event-ttl` (an hour by default): Events go once they have not been written for that long.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function event(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
    reason: 'Started',
    message: 'Started container web',
    type: 'Normal',
    source: { component: 'test' },
    lastTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

describe('--event-ttl', () => {
  let server: ApiServerProcess;
  const kubectl = (...args: string[]) => runKubectl(args, server.kubectlEnv);

  beforeAll(async () => {
    server = await startApiServerProcess({ args: ['--event-ttl=4s'] });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps an Event for the time to live after its last write, then deletes it (watchers see it go)', async () => {
    const file = join(server.dir, 'event.yaml');
    await writeFile(file, stringify(event('short-lived')));
    expect((await kubectl('create', '-f', file)).code).toBe(0);
    const created = Date.now();
    // Watches until its request timeout (11 s), long after the deletion.
    const watch = runKubectl(['get', 'events', '--watch-only', '--output-watch-events', '-o', 'json'], server.kubectlEnv, 12_000);
    // Times are stored to the second: the earliest deletion is about 3 s after the create.
    await sleep(2_000);
    expect((await kubectl('get', 'event', 'short-lived', '-o', 'name')).stdout.trim()).toBe('event/short-lived');
    await eventually(async () => expect((await kubectl('get', 'event', 'short-lived')).stderr).toContain('NotFound'), 15_000, 250);
    expect(Date.now() - created).toBeGreaterThanOrEqual(2_000);
    const watched = await watch;
    const seen = watched.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } });
    expect(seen.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['DELETED short-lived']);
  }, 40_000);
});
