import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall, type HttpsAnswer } from '../testing/https-call';
import { podSecurityViolations } from './pod-security';

const restrictedContext = {
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
  capabilities: { drop: ['ALL'] },
};

describe('Pod Security Standards checks', () => {
  it('passes a plain pod at baseline and names what restricted asks of it', () => {
    const plain = { containers: [{ name: 'c', image: 'busybox' }] };
    expect(podSecurityViolations('baseline', plain)).toEqual([]);
    expect(podSecurityViolations('restricted', plain)).toEqual([
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)',
      'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
      'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
      'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])',
    ]);
    expect(podSecurityViolations('restricted', { containers: [{ name: 'c', securityContext: restrictedContext }] })).toEqual([]);
    expect(podSecurityViolations('privileged', { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] })).toEqual([]);
  });

  it('finds what baseline forbids', () => {
    const spec = {
      hostNetwork: true,
      hostPID: true,
      securityContext: {
        sysctls: [
          { name: 'kernel.msgmax', value: '1' },
          { name: 'net.ipv4.tcp_syncookies', value: '1' },
        ],
        seccompProfile: { type: 'Unconfined' },
      },
      volumes: [
        { name: 'root', hostPath: { path: '/' } },
        { name: 'scratch', emptyDir: {} },
      ],
      containers: [
        {
          name: 'a',
          securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN', 'CHOWN'] }, procMount: 'Unmasked' },
          ports: [{ containerPort: 80, hostPort: 8080 }],
        },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'spc_t' } } },
      ],
    };
    expect(podSecurityViolations('baseline', spec, { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' })).toEqual([
      'host namespaces (hostNetwork=true, hostPID=true)',
      'privileged (container "a" must not set securityContext.privileged=true)',
      'non-default capabilities (container "a" must not include "NET_ADMIN" in securityContext.capabilities.add)',
      'hostPath volumes (volume "root")',
      'hostPort (container "a" uses hostPort 8080)',
      'forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/a="unconfined")',
      'seLinuxOptions (the type must be one of container_t, container_init_t, container_kvm_t, and user and role must not be set)',
      'procMount (container "a" must not set securityContext.procMount to "Unmasked")',
      'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
      'forbidden sysctls (kernel.msgmax)',
    ]);
    expect(podSecurityViolations('restricted', { ...spec, containers: [] })).toContain(
      'restricted volume types (volume "root" uses restricted volume type "hostPath")',
    );
  });
});

describe('PodSecurity admission (on by default)', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment();
  });

  afterAll(async () => {
    await env?.stop();
  });

  const admin = (method: string, path: string, body: unknown): Promise<HttpsAnswer> => adminCall(env, method, path, body);
  const namespace = (name: string, labels: Record<string, string>) => admin('POST', '/api/v1/namespaces', { metadata: { name, labels } });
  const pod = (ns: string, name: string, securityContext: unknown = {}) =>
    admin('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext }] } });

  it('enforces a namespace level on pods, and warns about pods and workload templates', async () => {
    expect((await namespace('strict', { 'pod-security.kubernetes.io/enforce': 'restricted' })).status).toBe(201);
    const refused = await pod('strict', 'plain');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^pods "plain" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    expect((await pod('strict', 'hardened', restrictedContext)).status).toBe(201);

    expect((await namespace('watched', { 'pod-security.kubernetes.io/warn': 'baseline' })).status).toBe(201);
    const warned = await pod('watched', 'admin', { capabilities: { add: ['NET_ADMIN'] } });
    expect(warned.status).toBe(201);
    expect(String(warned.headers.warning)).toContain('would violate PodSecurity \\"baseline:latest\\": non-default capabilities');
    const deployment = await admin('POST', '/apis/apps/v1/namespaces/strict/deployments', {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    // Templates are never refused, only warned about, by the enforce level as by the warn level.
    expect(deployment.status).toBe(201);
    expect(String(deployment.headers.warning)).toContain('would violate PodSecurity \\"restricted:latest\\": host namespaces (hostNetwork=true)');
  });

  it('warns which existing pods a stricter enforce level would refuse, grouped by what they violate', async () => {
    expect((await namespace('relabel', {})).status).toBe(201);
    const create = (name: string, spec: Record<string, unknown>) =>
      admin('POST', '/api/v1/namespaces/relabel/pods', { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });
    for (const name of ['web-b', 'web-a', 'web-c']) expect((await create(name, { hostNetwork: true })).status).toBe(201);
    expect((await create('mount', { volumes: [{ name: 'root', hostPath: { path: '/' } }] })).status).toBe(201);
    expect((await create('plain', {})).status).toBe(201);
    const label = (labels: Record<string, string | null>) =>
      adminCall(env, 'PATCH', '/api/v1/namespaces/relabel', { metadata: { labels } }, { 'Content-Type': 'application/merge-patch+json' });

    const stricter = await label({ 'pod-security.kubernetes.io/enforce': 'baseline' });
    expect(stricter.status).toBe(200);
    const warning = String(stricter.headers.warning);
    expect(warning).toContain('existing pods in namespace \\"relabel\\" violate the new PodSecurity enforce level \\"baseline:latest\\"');
    expect(warning).toContain('web-a (and 2 other pods): host namespaces');
    expect(warning).toContain('mount: hostPath volumes');
    expect(warning).not.toContain('plain');
    // The level is set whatever the pods: enforcement is for pods created from now on.
    expect((stricter.body.metadata as { labels?: unknown }).labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'baseline' });

    // The same level again, or a laxer one, is not checked.
    expect((await label({ 'pod-security.kubernetes.io/enforce': 'baseline', other: 'x' })).headers.warning).toBeUndefined();
    expect((await label({ 'pod-security.kubernetes.io/enforce': 'privileged' })).headers.warning).toBeUndefined();
  });

  it('refuses a namespace label that is not a level or a version', async () => {
    const bad = await namespace('typo', { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn-version': 'v2' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('metadata.labels[pod-security.kubernetes.io/enforce]: Unsupported value: "strict"');
  });
});
