import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { adminCall } from '../../../testing/https-call';

// A pod's `ephemeralcontainers` subresource through the server, as `kubectl debug` reaches it.

let env: TestEnvironment;

beforeAll(async () => {
  env = await startTestEnvironment();
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const base = '/api/v1/namespaces/default/pods';
const podSpec = { containers: [{ name: 'app', image: 'busybox:1.36' }], initContainers: [{ name: 'setup', image: 'busybox:1.36' }] };
const debugger1 = { name: 'debugger', image: 'busybox:1.36', stdin: true, tty: true, targetContainerName: 'app' };

async function pod(name: string): Promise<void> {
  const made = await adminCall(env, 'POST', base, { metadata: { name }, spec: podSpec });
  expect(made.status).toBe(201);
}

const strategic = (path: string, body: unknown) => adminCall(env, 'PATCH', path, body, { 'Content-Type': 'application/strategic-merge-patch+json' });

const causes = (body: Record<string, unknown>) =>
  ((body.details as { causes?: Array<{ field: string; message: string }> } | undefined)?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('pods/ephemeralcontainers', () => {
  it('adds a debug container by a strategic merge patch, as kubectl debug sends it, and answers the pod; GET answers it too', async () => {
    await pod('target');
    const added = await strategic(`${base}/target/ephemeralcontainers`, { spec: { ephemeralContainers: [debugger1] } });
    expect(added.status).toBe(200);
    const spec = (added.body as { spec: { ephemeralContainers: Array<Record<string, unknown>> } }).spec;
    expect(spec.ephemeralContainers).toEqual([
      expect.objectContaining({
        name: 'debugger',
        targetContainerName: 'app',
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
      }),
    ]);
    const read = await adminCall(env, 'GET', `${base}/target/ephemeralcontainers`);
    expect(read.status).toBe(200);
    expect(read.body.kind).toBe('Pod');
    // A second one joins the first; the rest of the pod is untouched by the subresource.
    const second = await strategic(`${base}/target/ephemeralcontainers`, {
      metadata: { labels: { ignored: 'yes' } },
      spec: { ephemeralContainers: [{ name: 'second', image: 'busybox:1.36' }], activeDeadlineSeconds: 5 },
    });
    expect(second.status).toBe(200);
    const after = second.body as {
      metadata: { labels?: Record<string, string> };
      spec: { ephemeralContainers: Array<{ name: string }>; activeDeadlineSeconds?: number };
    };
    expect(after.spec.ephemeralContainers.map((c) => c.name).sort()).toEqual(['debugger', 'second']);
    expect(after.metadata.labels).toBeUndefined();
    expect(after.spec.activeDeadlineSeconds).toBeUndefined();
  });

  it("refuses a change or removal of an existing ephemeral container in Kubernetes' words", async () => {
    await pod('fixed');
    expect((await strategic(`${base}/fixed/ephemeralcontainers`, { spec: { ephemeralContainers: [debugger1] } })).status).toBe(200);
    const changed = await strategic(`${base}/fixed/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.37' }] } });
    expect(changed.status).toBe(422);
    expect(changed.body.message).toContain(
      'Pod "fixed" is invalid: spec.ephemeralContainers[debugger]: Forbidden: existing ephemeral containers "debugger" may not be changed',
    );
    const current = (await adminCall(env, 'GET', `${base}/fixed`)).body as { metadata: Record<string, unknown> };
    const removed = await adminCall(env, 'PUT', `${base}/fixed/ephemeralcontainers`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: current.metadata,
      spec: podSpec,
    });
    expect(removed.status).toBe(422);
    expect(causes(removed.body)).toEqual(['spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n']);
  });

  it('checks the new container: a unique name, a target among the containers, none of the fields a debug container may not have', async () => {
    await pod('checked');
    const bad = await strategic(`${base}/checked/ephemeralcontainers`, {
      spec: {
        ephemeralContainers: [
          { name: 'app', image: 'busybox:1.36' },
          {
            name: 'probe',
            image: 'busybox:1.36',
            targetContainerName: 'missing',
            ports: [{ containerPort: 80 }],
            readinessProbe: { exec: { command: ['true'] } },
          },
          { name: 'limits', image: 'busybox:1.36', resources: { limits: { cpu: '1' } }, lifecycle: { postStart: { exec: { command: ['true'] } } } },
        ],
      },
    });
    expect(bad.status).toBe(422);
    expect(causes(bad.body)).toEqual(
      expect.arrayContaining([
        'spec.ephemeralContainers[0].name: Duplicate value: "app"',
        'spec.ephemeralContainers[1].targetContainerName: Not found: "missing"',
        'spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[1].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[2].resources: Forbidden: cannot be set for an Ephemeral Container',
        'spec.ephemeralContainers[2].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
      ]),
    );
  });

  it('is the only way in: a pod created with one, or an update of the pod adding one, is refused', async () => {
    const created = await adminCall(env, 'POST', base, { metadata: { name: 'early' }, spec: { ...podSpec, ephemeralContainers: [debugger1] } });
    expect(created.status).toBe(422);
    expect(causes(created.body)).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
    await pod('main');
    const updated = await strategic(`${base}/main`, { spec: { ephemeralContainers: [debugger1] } });
    expect(updated.status).toBe(422);
    expect(String(updated.body.message)).toContain('pod updates may not change fields other than');
  });

  it('is listed in discovery with get, patch and update', async () => {
    const list = await adminCall(env, 'GET', '/api/v1');
    const resources = (list.body as { resources: Array<{ name: string; verbs: string[]; kind: string }> }).resources;
    expect(resources.find((r) => r.name === 'pods/ephemeralcontainers')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });
});
