import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// `--allow-privileged` (false by default): whether a pod may run a privileged container, as kubectl meets it.

const privilegedPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'root', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'busybox:1.36', securityContext: { privileged: true } }] },
};

async function createPod(server: ApiServerProcess) {
  const file = join(server.dir, 'pod.yaml');
  await writeFile(file, stringify(privilegedPod));
  return runKubectl(['create', '-f', file], server.kubectlEnv);
}

describe('--allow-privileged', () => {
  const servers: ApiServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('refuses a privileged container by default, and takes it with --allow-privileged=true', async () => {
    const [strict, permissive] = await Promise.all([startApiServerProcess(), startApiServerProcess({ args: ['--allow-privileged=true'] })]);
    servers.push(strict, permissive);
    const refused = await createPod(strict);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The Pod "root" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    const taken = await createPod(permissive);
    expect(taken.stderr).toBe('');
    expect(taken.stdout).toContain('pod/root created');
  }, 60_000);
});
