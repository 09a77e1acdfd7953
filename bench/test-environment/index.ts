import * as testing from '@svc/apiserver/testing';

/**
 * Start time of the operator test environment (`startTestEnvironment`): the first start of a
 * process (which generates the serving certificate) and the median of the starts after it.
 * By default from this tree; with SVC_PACKAGE_PROJECT=<dir>, from the `@svc/apiserver/testing`
 * installed in that project (a project made by `svc-operator init` on the packed packages), which is
 * what users run.
 */
const STARTS = Number(process.env.TEST_ENVIRONMENT_BENCH_STARTS ?? 10);

type Testing = typeof testing;

async function entry(): Promise<{ from: string; kit: Testing }> {
  const project = process.env.SVC_PACKAGE_PROJECT;
  if (!project) return { from: 'this tree (dist)', kit: testing };
  const path = require.resolve('@svc/apiserver/testing', { paths: [project] });
  return { from: path, kit: (await import(path)) as Testing };
}

/** The built-in controllers an operator's test most often needs, run in the environment's process. */
const CONTROLLERS = ['garbagecollector', 'namespace', 'deployment', 'replicaset'];

async function measure(kit: Testing, options: testing.TestEnvironmentOptions): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const env = await kit.startTestEnvironment(options);
    starts.push(env.startupMs);
    await env.stop();
  }
  return starts;
}

function report(starts: number[], goal: string): void {
  const later = starts.slice(1).sort((a, b) => a - b);
  const median = later[Math.floor(later.length / 2)];
  console.log(`first start            ${starts[0].toFixed(0)} ms`);
  console.log(
    `median of next ${String(later.length).padEnd(8)}${median.toFixed(0)} ms (min ${later[0].toFixed(0)}, max ${later[later.length - 1].toFixed(0)}${goal})`,
  );
}

export async function run(): Promise<void> {
  const { from, kit } = await entry();
  console.log(`startTestEnvironment from ${from}`);
  report(await measure(kit, {}), '; goal 500 ms');
  // With controllers, a start also waits for their informers' first lists (the first start loads them too).
  console.log(`with controllers: ${CONTROLLERS.join(', ')}`);
  report(await measure(kit, { controllers: CONTROLLERS }), '');
}
