import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureClientCa, issueClientCertificate } from '@svc/apiserver';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { KubectlIdentities } from './support/kubectl-identities';
import { runKubectl } from './support/kubectl-run';

// Authentication and RBAC as users meet them: the real svc-apiserver process with RBAC, a static
// token file and a client CA, driven by kubectl and curl.

const run = promisify(execFile);

let server: ApiServerProcess;
let dir: string;
let userCaFile: string;
let as: KubectlIdentities;
const env = (who: string) => as.env(who);
const kubectl = (who: string, ...args: string[]) => as.run(who, ...args);
const kubectlFails = (who: string, ...args: string[]) => as.fails(who, ...args);

/** curl, as a script would call the server: the status code and the body. */
async function curl(path: string, ...args: string[]): Promise<{ code: number; body: Record<string, unknown> }> {
  const { stdout } = await run('curl', ['-s', '--cacert', join(dir, 'serving-ca.crt'), '-w', '\n%{http_code}', ...args, `${server.url}${path}`]);
  const at = stdout.lastIndexOf('\n');
  const text = stdout.slice(0, at);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { code: Number(stdout.slice(at + 1)), body };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-auth-e2e-'));
  const userCa = await ensureClientCa(join(dir, 'user-ca'));
  userCaFile = userCa.certFile;
  await writeFile(join(dir, 'tokens.csv'), 'alice-token,alice,uid-alice,"devs,qa"\nbob-token,bob,uid-bob\n');
  server = await startApiServerProcess({
    serviceAccountTokens: true,
    args: ['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`, `--client-ca-file=${userCaFile}`],
  });
  await writeFile(join(dir, 'serving-ca.crt'), server.ca);
  const carol = await issueClientCertificate(userCa, 'carol', ['team-a']);
  const rogueCa = await ensureClientCa(join(dir, 'rogue-ca'));
  const rogue = await issueClientCertificate(rogueCa, 'mallory', ['system:masters']);
  await writeFile(join(dir, 'rogue.crt'), rogue.certPem);
  await writeFile(join(dir, 'rogue.key'), rogue.keyPem);
  const users: Record<string, Record<string, string>> = {
    alice: { token: 'alice-token' },
    bob: { token: 'bob-token' },
    forged: { token: 'not-a-token' },
    carol: { 'client-certificate-data': Buffer.from(carol.certPem).toString('base64'), 'client-key-data': Buffer.from(carol.keyPem).toString('base64') },
  };
  as = new KubectlIdentities(server, dir);
  for (const [name, user] of Object.entries(users)) await as.withUser(name, user);
  await kubectl('admin', 'create', 'namespace', 'team');
  await kubectl('admin', 'create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'team');
  await kubectl('admin', 'create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'team');
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('authentication', () => {
  it('knows the connection file the server wrote as an administrator', async () => {
    const out = await kubectl('admin', 'auth', 'whoami');
    expect(out).toMatch(/Username\s+svc-admin/);
    expect(out).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
  });

  it('authenticates a client certificate of the client CA as its CommonName and Organizations', async () => {
    const out = await kubectl('carol', 'auth', 'whoami', '-o', 'json');
    const review = JSON.parse(out) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(review.status.userInfo).toEqual({ username: 'carol', groups: ['team-a', 'system:authenticated'] });
  });

  it('answers 401 to a certificate of another CA, even one claiming system:masters', async () => {
    const answer = await curl('/api/v1/namespaces', '--cert', join(dir, 'rogue.crt'), '--key', join(dir, 'rogue.key'));
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('authenticates a static token, and answers 401 to an unknown one', async () => {
    expect(await kubectl('alice', 'auth', 'whoami')).toMatch(/Username\s+alice[\s\S]*UID\s+uid-alice[\s\S]*Groups\s+\[devs qa system:authenticated\]/);
    const refused = await kubectlFails('forged', 'get', 'pods');
    // kubectl's words for a 401.
    expect(refused.stderr).toContain('the server has asked for the client to provide credentials');
    const answer = await curl('/version', '-H', 'Authorization: Bearer not-a-token');
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('lets anonymous callers reach health and version only', async () => {
    expect((await curl('/version')).code).toBe(200);
    expect((await curl('/readyz')).code).toBe(200);
    const pods = await curl('/api/v1/pods');
    expect(pods.code).toBe(403);
    expect(pods.body.message).toBe('pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope');
  });
});

describe('service account tokens', () => {
  it("authenticate a pod's token as its service account until the pod is deleted", async () => {
    await kubectl('admin', 'create', 'serviceaccount', 'robot', '-n', 'team');
    await kubectl('admin', 'run', 'worker', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"robot"}}', '-n', 'team');
    const token = (await kubectl('admin', 'create', 'token', 'robot', '--bound-object-kind=Pod', '--bound-object-name=worker', '-n', 'team')).trim();
    expect(token.split('.')).toHaveLength(3);
    await as.withUser('robot', { token });
    const who = await kubectl('robot', 'auth', 'whoami');
    expect(who).toMatch(/Username\s+system:serviceaccount:team:robot/);
    expect(who).toMatch(/Groups\s+\[system:serviceaccounts system:serviceaccounts:team system:authenticated\]/);
    expect(who).toMatch(/authentication\.kubernetes\.io\/pod-name\s+\[worker\]/);
    const discovery = await curl('/.well-known/openid-configuration', '-H', `Authorization: Bearer ${token}`);
    expect(discovery.body).toMatchObject({ issuer: 'https://kubernetes.default.svc.cluster.local' });
    await kubectl('admin', 'delete', 'pod', 'worker', '-n', 'team', '--grace-period=0', '--force');
    await eventually(async () => expect((await curl('/version', '-H', `Authorization: Bearer ${token}`)).code).toBe(401));
  });
});

describe('RBAC', () => {
  it('lets a user bound to view list in its namespace, and answers 403 elsewhere and for writes', async () => {
    await eventually(async () => expect(await kubectl('alice', 'get', 'pods', '-n', 'team', '-o', 'name')).toBeDefined());
    const elsewhere = await kubectlFails('alice', 'get', 'pods', '-n', 'default');
    expect(elsewhere.stderr).toContain(
      'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const write = await kubectlFails('alice', 'create', 'configmap', 'c', '-n', 'team');
    expect(write.stderr).toContain('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"');
  });

  it('answers kubectl auth can-i, with --list', async () => {
    expect((await kubectl('alice', 'auth', 'can-i', 'list', 'pods', '-n', 'team')).trim()).toBe('yes');
    const no = await runKubectl(['auth', 'can-i', 'create', 'pods', '-n', 'team'], env('alice'));
    expect({ code: no.code, out: no.stdout.trim() }).toEqual({ code: 1, out: 'no' });
    const list = await kubectl('alice', 'auth', 'can-i', '--list', '-n', 'team');
    expect(list).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(list).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list).not.toMatch(/^secrets\s/m);
    expect(await kubectl('admin', 'auth', 'can-i', '--list')).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  });

  it('impersonates only with the impersonate verb', async () => {
    const refused = await kubectlFails('alice', 'get', 'pods', '-n', 'team', '--as=bob');
    expect(refused.stderr).toContain('users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    expect(await kubectl('admin', 'auth', 'whoami', '--as=alice', '--as-group=devs')).toMatch(/Username\s+alice[\s\S]*Groups\s+\[devs system:authenticated\]/);
    await kubectl('admin', 'create', 'clusterrole', 'impersonate-bob', '--verb=impersonate', '--resource=users', '--resource-name=bob');
    await kubectl('admin', 'create', 'clusterrolebinding', 'alice-as-bob', '--clusterrole=impersonate-bob', '--user=alice');
    await eventually(async () => expect(await kubectl('alice', 'auth', 'whoami', '--as=bob')).toMatch(/Username\s+bob/));
    const other = await kubectlFails('alice', 'get', 'pods', '-n', 'team', '--as=carol');
    expect(other.stderr).toContain('users "carol" is forbidden');
  });

  it('refuses to let a namespace admin grant more than it holds', async () => {
    await eventually(async () => expect(await kubectl('bob', 'get', 'rolebindings', '-n', 'team')).toContain('alice-view'));
    const escalation = await kubectlFails('bob', 'create', 'rolebinding', 'bob-root', '--clusterrole=cluster-admin', '--user=bob', '-n', 'team');
    expect(escalation.stderr).toContain('rolebindings.rbac.authorization.k8s.io "bob-root" is forbidden: user "bob"');
    expect(escalation.stderr).toContain('is attempting to grant RBAC permissions not currently held');
    const role = await kubectlFails('bob', 'create', 'role', 'nodes', '--verb=get', '--resource=nodes', '-n', 'team');
    expect(role.stderr).toContain('roles.rbac.authorization.k8s.io "nodes" is forbidden');
    await kubectl('bob', 'create', 'role', 'cm-reader', '--verb=get', '--resource=configmaps', '-n', 'team');
    await kubectl('bob', 'create', 'rolebinding', 'alice-cm', '--role=cm-reader', '--user=alice', '-n', 'team');
  });
});

describe('built-in controllers under RBAC', () => {
  let manager: ControllerManagerProcess | undefined;
  afterAll(async () => {
    await manager?.stop();
  });

  it('run with the controller manager identity and its bootstrap role', async () => {
    const identity = await as.withCertificate('manager', 'system:kube-controller-manager');
    expect(await kubectl('manager', 'auth', 'whoami')).toMatch(/Username\s+system:kube-controller-manager/);
    manager = await startControllerManagerProcess(server, [`--svcconfig=${identity}`], 60_000);
    await kubectl('admin', 'create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'team');
    await eventually(async () => expect((await kubectl('admin', 'get', 'pods', '-n', 'team', '-o', 'name')).trim().split('\n')).toHaveLength(2), 30_000);
    await kubectl('admin', 'create', 'namespace', 'doomed');
    await kubectl('admin', 'create', 'configmap', 'c', '-n', 'doomed');
    await kubectl('admin', 'delete', 'namespace', 'doomed', '--timeout=30s');
    expect(manager.stderr()).not.toMatch(/forbidden/i);
  }, 90_000);
});
