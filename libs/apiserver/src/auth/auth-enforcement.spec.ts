import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '../testing';
import { adminCall, httpsCall, type HttpsAnswer } from '../testing/https-call';

const RBAC = 'apis/rbac.authorization.k8s.io/v1';

describe('authentication and RBAC, in-process', () => {
  let env: TestEnvironment;
  let dir: string;
  let ca: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-auth-spec-'));
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, 'alice-token,alice,uid-a,"devs,qa"\nbob-token,bob,uid-b\n');
    env = await startTestEnvironment({ authentication: { tokenAuthFile: tokenFile }, authorization: { modes: ['RBAC'] } });
    ca = env.clientConfig.ca!;
    const admin = (method: string, path: string, body: unknown) => adminCall(env, method, path, body);
    await eventually(async () => expect((await admin('GET', `/${RBAC}/clusterroles/view`, undefined)).status).toBe(200));
    expect((await admin('POST', '/api/v1/namespaces', { metadata: { name: 'team' } })).status).toBe(201);
    const binding = (name: string, role: string, user: string, kind = 'ClusterRole') => ({
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    expect((await admin('POST', `/${RBAC}/namespaces/team/rolebindings`, binding('alice-view', 'view', 'alice'))).status).toBe(201);
    expect((await admin('POST', `/${RBAC}/namespaces/team/rolebindings`, binding('bob-admin', 'admin', 'bob'))).status).toBe(201);
  });

  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<HttpsAnswer> {
    return httpsCall(env.url, ca, method, path, headers, body);
  }
  const asAlice = { Authorization: 'Bearer alice-token' };
  const asBob = { Authorization: 'Bearer bob-token' };

  it('lets anonymous callers read health and version only', async () => {
    expect((await call('GET', '/version')).status).toBe(200);
    // Readiness itself may lag on a loaded machine; what matters is that anonymous callers may ask.
    await eventually(async () => expect((await call('GET', '/readyz')).status).toBe(200), 30_000);
    const api = await call('GET', '/api');
    expect(api.status).toBe(403);
    expect(api.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/api"');
    const pods = await call('GET', '/api/v1/pods');
    expect(pods.body).toMatchObject({
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      message: 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope',
    });
  });

  it('answers 401 with a Status to a bad, oversized or malformed token, never anonymous', async () => {
    for (const header of ['Bearer nope', `Bearer ${'x'.repeat(13 * 1024)}`, 'Bearer a b']) {
      const answer = await call('GET', '/version', { Authorization: header });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    }
  });

  it('authenticates a static token as its user and groups (whoami)', async () => {
    const review = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', asAlice, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(review.status).toBe(201);
    expect(review.body.status).toEqual({ userInfo: { username: 'alice', uid: 'uid-a', groups: ['devs', 'qa', 'system:authenticated'] } });
  });

  it('lets a user bound to view list in its namespace only, and not write', async () => {
    await eventually(async () => expect((await call('GET', '/api/v1/namespaces/team/pods', asAlice)).status).toBe(200));
    const elsewhere = await call('GET', '/api/v1/namespaces/default/pods', asAlice);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const write = await call('POST', '/api/v1/namespaces/team/configmaps', asAlice, { metadata: { name: 'c' } });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"');
    const secret = await call('GET', '/api/v1/namespaces/team/secrets/s', asAlice);
    expect(secret.body.message).toBe('secrets "s" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team"');
    // A rule of the k8s.io group name matches requests through the svc.io name.
    const twin = await call('GET', '/apis/rbac.authorization.svc.io/v1/namespaces/team/rolebindings', asBob);
    expect(twin.status).toBe(200);
  });

  it('answers access reviews and rules reviews as the authorizer decides', async () => {
    const ssar = (namespace: string, verb: string) =>
      call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', asAlice, {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { resourceAttributes: { namespace, verb, resource: 'pods' } },
      });
    // The reason names what granted it, in Kubernetes' words (audit logs carry it too).
    expect((await ssar('team', 'list')).body.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "alice-view/team" of ClusterRole "view" to User "alice"',
    });
    expect(((await ssar('default', 'list')).body.status as { allowed: boolean }).allowed).toBe(false);
    expect(((await ssar('team', 'delete')).body.status as { allowed: boolean }).allowed).toBe(false);
    const rules = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', asAlice, { spec: { namespace: 'team' } });
    const resourceRules = (rules.body.status as { resourceRules: Array<{ verbs: string[]; resources?: string[] }> }).resourceRules;
    expect(resourceRules).toContainEqual(expect.objectContaining({ verbs: ['get', 'list', 'watch'], resources: expect.arrayContaining(['pods']) as unknown }));
    // Asking about someone else needs create on subjectaccessreviews, which alice does not have.
    const sar = await call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', asAlice, {
      spec: { user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } },
    });
    expect(sar.status).toBe(403);
  });

  it('impersonates only with the impersonate verb', async () => {
    const headers = { ...asAlice, 'Impersonate-User': 'carol' };
    const refused = await call('GET', '/api/v1/namespaces/team/pods', headers);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    const admin = (method: string, path: string, body: unknown) => adminCall(env, method, path, body);
    await admin('POST', `/${RBAC}/clusterroles`, {
      metadata: { name: 'impersonate-carol' },
      rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['carol'] }],
    });
    await admin('POST', `/${RBAC}/clusterrolebindings`, {
      metadata: { name: 'alice-impersonates' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-carol' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    });
    await eventually(async () => {
      const review = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', headers, { kind: 'SelfSubjectReview' });
      expect(review.body.status).toEqual({ userInfo: { username: 'carol', groups: ['system:authenticated'] } });
    });
    // carol holds nothing in team.
    expect((await call('GET', '/api/v1/namespaces/team/pods', headers)).status).toBe(403);
    // A group needs its own grant.
    expect((await call('GET', '/version', { ...headers, 'Impersonate-Group': 'system:masters' })).status).toBe(403);
    const tooMany = await call('GET', '/version', { ...headers, 'Impersonate-Group': Array.from({ length: 101 }, (_, i) => `g${i}`).join(',') });
    expect(tooMany.status).toBe(400);
  });

  it('refuses to grant what the writer does not hold, unless it may escalate or bind', async () => {
    const roles = `/${RBAC}/namespaces/team/roles`;
    const bindings = `/${RBAC}/namespaces/team/rolebindings`;
    await eventually(async () => expect((await call('GET', roles, asBob)).status).toBe(200));
    const held = await call('POST', roles, asBob, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    expect(held.status).toBe(201);
    const notHeld = await call('POST', roles, asBob, { metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
    expect(notHeld.status).toBe(403);
    expect(notHeld.body.message).toContain(
      'roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
    );
    expect(notHeld.body.message).toContain('{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}');
    const escalating = await call('POST', bindings, asBob, {
      metadata: { name: 'bob-root' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    });
    expect(escalating.status).toBe(403);
    expect(escalating.body.message).toContain('rolebindings.rbac.authorization.k8s.io "bob-root" is forbidden: user "bob"');
    const withinReach = await call('POST', bindings, asBob, {
      metadata: { name: 'alice-cm' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    });
    expect(withinReach.status).toBe(201);
  });

  it('refuses anonymous callers with 401 when anonymous authentication is off', async () => {
    const closed = await startTestEnvironment({ authentication: { anonymous: false }, authorization: { modes: ['RBAC'] } });
    try {
      const answer = await httpsCall(closed.url, closed.clientConfig.ca!, 'GET', '/version', {});
      expect(answer.status).toBe(401);
      expect((await closed.client.namespaces.list()).items.length).toBeGreaterThan(0);
    } finally {
      await closed.stop();
    }
  });
});
