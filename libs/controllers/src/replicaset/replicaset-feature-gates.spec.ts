import 'reflect-metadata';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { replicaSetController } from './index';

let env: TestEnvironment;
let running: RunningControllers;

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [replicaSetController], ['--feature-gates=DeploymentReplicaSetTerminatingReplicas=false']);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

it('reads --feature-gates: with DeploymentReplicaSetTerminatingReplicas off, the status has no terminatingReplicas', async () => {
  await env.client.replicaSets.create({
    metadata: { name: 'gated', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'gated' } },
      template: { metadata: { labels: { app: 'gated' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  });
  await eventually(async () => {
    const status = (await env.client.replicaSets.get('gated', { namespace: 'default' })).status;
    expect(status).toEqual({ replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  });
});
