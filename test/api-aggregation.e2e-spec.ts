import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { decodeEnvelope, decodeProtobufObject, encodeProtobufObject } from '@svc/machinery';
import { eventually } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { ECHO_GROUP, ECHO_VERSION, type ExtensionApiServer, startExtensionApiServer } from './support/extension-apiserver';
import { kubectl, runKubectl } from './support/kubectl-run';

// API aggregation end to end: an extension API server of the test's own, a real process on loopback,
// registered by an APIService through a Service with manual Endpoints, reached through this API server
// with the front-proxy certificate and the caller in X-Remote-* headers.

const GV = `${ECHO_GROUP}/${ECHO_VERSION}`;
const ECHOES = `/apis/${GV}/namespaces/default/echoes`;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

let server: ApiServerProcess;
let extension: ExtensionApiServer;

async function admin(...args: string[]): Promise<string> {
  return (await kubectl(args, server.kubectlEnv, 30_000)).stdout;
}

/** kubectl with a manifest on its standard input. */
function kubectlWith(args: string[], manifest: unknown): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/kubectl', args, { env: { ...process.env, ...server.kubectlEnv } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(JSON.stringify(manifest));
  });
}

async function apply(manifest: unknown): Promise<void> {
  const result = await kubectlWith(['apply', '-f', '-'], manifest);
  if (result.code !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
}

async function available(name: string): Promise<Condition | undefined> {
  const apiService = JSON.parse(await admin('get', 'apiservice', name, '-o', 'json')) as { status?: { conditions?: Condition[] } };
  return apiService.status?.conditions?.find((c) => c.type === 'Available');
}

/** An anonymous TLS connection to the API server (the test servers allow anonymous requests). */
function connect(): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.ca }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads from the socket until `pattern` matches what came, or it closes; what came, and whether it closed. */
function readUntil(socket: TLSSocket, pattern: RegExp, timeoutMs = 10_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve({ text, closed });
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (pattern.test(text)) done(false);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('data', onData);
    socket.once('close', () => done(true));
  });
}

beforeAll(async () => {
  server = await startApiServerProcess();
  extension = await startExtensionApiServer(server.kubeconfig, 'echo-api', 'default');
  await apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'echo-api', namespace: 'default' },
        spec: { ports: [{ name: 'https', port: 443, targetPort: extension.port }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'echo-api', namespace: 'default' },
        subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: extension.port }] }],
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `${ECHO_VERSION}.${ECHO_GROUP}` },
        spec: {
          group: ECHO_GROUP,
          version: ECHO_VERSION,
          service: { namespace: 'default', name: 'echo-api', port: 443 },
          caBundle: extension.caBundle,
          groupPriorityMinimum: 1000,
          versionPriority: 15,
        },
      },
    ],
  });
  await eventually(
    async () => expect(await available(`${ECHO_VERSION}.${ECHO_GROUP}`)).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' }),
    30_000,
    200,
  );
}, 120_000);

afterAll(async () => {
  await extension?.kill();
  await server?.stop();
});

describe('APIServices', () => {
  it('lists a Local one, Available, for every group version the server serves itself', async () => {
    const table = await admin('get', 'apiservices');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    for (const name of ['v1.', 'v1.apps', 'v1.coordination.k8s.io', 'v1.apiregistration.k8s.io']) {
      await eventually(
        async () => expect(await admin('get', 'apiservices')).toMatch(new RegExp(`^${name.replace(/\./g, '\\.')}\\s+Local\\s+True\\s`, 'm')),
        15_000,
        200,
      );
    }
    expect(await available('v1.apps')).toMatchObject({ status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
    expect(table).toMatch(/^v1alpha1\.echo\.example\.com\s+default\/echo-api\s+True\s/m);
  });

  it('is served in protobuf as client-go reads it, the same object as JSON, byte for byte both ways', async () => {
    const path = `/apis/apiregistration.k8s.io/v1/apiservices/${ECHO_VERSION}.${ECHO_GROUP}`;
    const get = (accept: string) =>
      new Promise<Buffer>((resolve, reject) => {
        const req = httpsRequest(`${server.url}${path}`, { ca: server.ca, headers: { Accept: accept } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        });
        req.on('error', reject);
        req.end();
      });
    const json = JSON.parse((await get('application/json')).toString('utf8')) as Record<string, unknown>;
    const protobuf = await get('application/vnd.kubernetes.protobuf');
    expect(decodeProtobufObject(decodeEnvelope(protobuf))).toEqual(json);
    expect(Buffer.from(encodeProtobufObject(json)).equals(protobuf)).toBe(true);
  });

  it("refuses a name other than <version>.<group>, priorities out of range and a caBundle on a local one, in Kubernetes' words", async () => {
    const { stderr: refused } = await kubectlWith(['create', '-f', '-'], {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.wrong.example.com' },
      spec: { group: 'right.example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001, caBundle: 'AAAA' },
    });
    expect(refused).toContain('metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.right.example.com"');
    expect(refused).toContain('spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000');
    expect(refused).toContain('spec.versionPriority: Invalid value: 1001: must be positive and less than 1000');
    expect(refused).toContain('spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle');
  });

  it('is Available=False with reason ServiceNotFound while its service does not exist, and its requests are 503', async () => {
    await apply({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.missing.example.com' },
      spec: {
        group: 'missing.example.com',
        version: 'v1',
        service: { namespace: 'default', name: 'nope' },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 10,
      },
    });
    await eventually(
      async () =>
        expect(await available('v1.missing.example.com')).toMatchObject({
          status: 'False',
          reason: 'ServiceNotFound',
          message: 'service/nope in "default" is not present',
        }),
      15_000,
      200,
    );
    expect(await admin('get', 'apiservice', 'v1.missing.example.com')).toMatch(/default\/nope\s+False \(ServiceNotFound\)/);
    const result = await runKubectl(['get', '--raw', '/apis/missing.example.com/v1'], server.kubectlEnv);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the server is currently unable to handle the request');
    await admin('delete', 'apiservice', 'v1.missing.example.com');
  });
});

describe('the proxy', () => {
  it('serves kubectl get of the aggregated group, the caller in X-Remote-User and X-Remote-Group', async () => {
    const list = JSON.parse(await admin('get', `echoes.${ECHO_GROUP}`, '-n', 'default', '-o', 'json')) as {
      items: Array<{ spec: { user: string; groups: string[] } }>;
    };
    expect(list.items[0].spec.user).toBe('svc-admin');
    expect(list.items[0].spec.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
    const one = JSON.parse(await admin('get', '--raw', `${ECHOES}/first?pretty=1`)) as { spec: { path: string } };
    expect(one.spec.path).toMatch(new RegExp(`^${ECHOES}/first\\?pretty=1`));
  });

  it('lists the group in discovery, legacy and aggregated, so kubectl api-resources shows it', async () => {
    const resources = await admin('api-resources', `--api-group=${ECHO_GROUP}`);
    expect(resources).toMatch(/^echoes\s+ec\s+echo\.example\.com\/v1alpha1\s+true\s+Echo$/m);
    const legacy = JSON.parse(await admin('get', '--raw', '/apis')) as { groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> };
    expect(legacy.groups.find((g) => g.name === ECHO_GROUP)?.preferredVersion.groupVersion).toBe(GV);
    const group = JSON.parse(await admin('get', '--raw', `/apis/${ECHO_GROUP}`)) as { versions: Array<{ version: string }> };
    expect(group.versions.map((v) => v.version)).toEqual([ECHO_VERSION]);
    const aggregated = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        `${server.url}/apis`,
        { ca: server.ca, headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const items = (
      JSON.parse(aggregated) as { items: Array<{ metadata: { name: string }; versions: Array<{ freshness: string; resources: Array<{ resource: string }> }> }> }
    ).items;
    const echo = items.find((i) => i.metadata.name === ECHO_GROUP);
    expect(echo?.versions[0]).toMatchObject({ freshness: 'Current', resources: [expect.objectContaining({ resource: 'echoes' })] });
    // Ordered by groupPriorityMinimum: 1000 sits with the groups of CustomResourceDefinitions, below every built-in one.
    const names = items.map((i) => i.metadata.name);
    expect(names.indexOf(ECHO_GROUP)).toBeGreaterThan(names.indexOf('apps'));
  });

  it('streams a watch through', async () => {
    const lines = await new Promise<string[]>((resolve, reject) => {
      const req = httpsRequest(`${server.url}${ECHOES}?watch=true`, { ca: server.ca }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const complete = text.split('\n').filter((l) => l.trim() !== '');
          if (complete.length >= 3) {
            req.destroy();
            resolve(complete);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED']);
    expect((JSON.parse(lines[0]) as { object: { spec: { user: string } } }).object.spec.user).toBe('system:anonymous');
  });

  it('splices an upgrade the server accepts, and closes the connection when it refuses one', async () => {
    const accepted = await connect();
    accepted.write(`GET ${ECHOES}/shell/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
    const head = await readUntil(accepted, /\r\n\r\n/);
    expect(head.text).toMatch(/^HTTP\/1\.1 101 /);
    expect(head.text).toContain('X-Echo-User: system:anonymous');
    accepted.write('ping');
    expect((await readUntil(accepted, /ping/)).text).toBe('ping');
    accepted.destroy();

    const refused = await connect();
    refused.write(`GET ${ECHOES}/shell/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: other\r\n\r\n`);
    const answer = await readUntil(refused, /upgrade to echo only/);
    expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
    // Whatever the client sends next must not reach the backend over this server's credentials.
    refused.write(`GET ${ECHOES}/smuggled HTTP/1.1\r\nHost: x\r\n\r\n`);
    const after = await readUntil(refused, /smuggled/, 5_000);
    expect(after.text).not.toContain('smuggled');
    expect(after.closed).toBe(true);
  });

  it('answers 503 once the backend is gone, and the server stays up', async () => {
    await extension.kill();
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(`${server.url}${ECHOES}`, { ca: server.ca }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status.code).toBe(503);
    expect(status.body).toMatch(/error trying to reach service|service unavailable/);
    const result = await runKubectl(['get', `echoes.${ECHO_GROUP}`, '-n', 'default'], server.kubectlEnv);
    expect(result.stderr).toContain('the server is currently unable to handle the request');
    expect((await admin('get', '--raw', '/readyz')).trim()).toBe('ok');
  });
});
