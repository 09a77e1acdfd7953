import { builtinScheme } from '@svc/api';
import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall, type HttpsAnswer } from '../testing/https-call';
import type { AdmissionAttributes } from './admission';
import { privilegedContainersDenied } from './privileged-containers';

const privileged = { privileged: true };

describe('privileged containers (--allow-privileged, off by default)', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment();
  });

  afterAll(async () => {
    await env?.stop();
  });

  const create = (path: string, body: unknown): Promise<HttpsAnswer> => adminCall(env, 'POST', path, body);

  const podSpec = (containers: unknown[], initContainers: unknown[] = []) => ({ containers, initContainers });

  it('refuses a pod with a privileged container, naming the field as Kubernetes does', async () => {
    const answer = await create('/api/v1/namespaces/default/pods', {
      metadata: { name: 'root' },
      spec: podSpec([
        { name: 'a', image: 'busybox' },
        { name: 'b', image: 'busybox', securityContext: privileged },
      ]),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('Pod "root" is invalid: spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy');
  });

  it('refuses a workload whose pod template has one, and takes what is not privileged', async () => {
    const template = {
      metadata: { labels: { app: 'x' } },
      spec: podSpec([{ name: 'a', image: 'busybox' }], [{ name: 'i', image: 'busybox', securityContext: privileged }]),
    };
    const deployment = await create('/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'root' },
      spec: { selector: { matchLabels: { app: 'x' } }, template },
    });
    expect(deployment.status).toBe(422);
    expect(deployment.body.message).toContain('spec.template.spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    const plain = await create('/api/v1/namespaces/default/pods', {
      metadata: { name: 'plain' },
      spec: podSpec([{ name: 'a', image: 'busybox', securityContext: { privileged: false } }]),
    });
    expect(plain.status).toBe(201);
  });

  it('checks creates and updates of the object and its ephemeral containers, never its status', () => {
    const pod = { metadata: { name: 'root' }, spec: podSpec([{ name: 'b', image: 'busybox', securityContext: privileged }]) };
    const definition = builtinScheme().byResource({ group: '', version: 'v1', resource: 'pods' })!;
    const attributes: AdmissionAttributes = {
      operation: 'CREATE',
      definition,
      namespace: 'default',
      name: 'root',
      subresource: '',
      object: pod,
      dryRun: false,
    };
    expect(() => privilegedContainersDenied().validate!(attributes)).toThrow(/disallowed by cluster policy/);
    expect(() => privilegedContainersDenied().validate!({ ...attributes, operation: 'UPDATE', subresource: 'ephemeralcontainers' })).toThrow(/disallowed/);
    expect(() => privilegedContainersDenied().validate!({ ...attributes, operation: 'DELETE' })).not.toThrow();
    expect(() => privilegedContainersDenied().validate!({ ...attributes, subresource: 'status' })).not.toThrow();
  });
});
