import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';

const TOKEN = 'carol-token-5555';
const bearer = (token: string) => `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;

interface Opened {
  protocol: string;
  messages: Array<{ text: string; binary: boolean }>;
  close(): void;
  waitFor(count: number): Promise<void>;
}

/** A WebSocket as a browser opens one: no Authorization header, the token (if any) among the subprotocols. */
function openSocket(apiserver: ApiServerProcess, path: string, protocols: string[]): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${apiserver.url.replace(/^https/, 'wss')}${path}`, protocols, { ca: apiserver.ca, perMessageDeflate: false });
    const messages: Opened['messages'] = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (data: Buffer, binary: boolean) => {
      messages.push({ text: data.toString(), binary });
      for (const w of waiters.splice(0)) w();
    });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        protocol: ws.protocol,
        messages,
        close: () => ws.close(),
        waitFor: async (count) => {
          const deadline = Date.now() + 10_000;
          while (messages.length < count) {
            if (Date.now() > deadline) throw new Error(`${messages.length} of ${count} messages came`);
            await new Promise<void>((r) => {
              waiters.push(r);
              setTimeout(r, 200);
            });
          }
        },
      }),
    );
  });
}

describe('API server: WebSockets as browsers open them', () => {
  let dir: string;
  let apiserver: ApiServerProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-websocket-e2e-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, `${TOKEN},carol,carol-uid\n`);
    apiserver = await startApiServerProcess({ args: ['--authorization-mode=RBAC', `--token-auth-file=${tokens}`] });
    await kubectl(['create', 'rolebinding', 'carol-view', '--clusterrole=view', '--user=carol', '--namespace=default'], apiserver.kubectlEnv);
    await kubectl(['create', 'configmap', 'first', '--from-literal=a=1'], apiserver.kubectlEnv);
  }, 60_000);

  afterAll(async () => {
    await apiserver?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('authenticates the bearer subprotocol, answers with the other one offered, and sends each watch event as a text message', async () => {
    const socket = await openSocket(apiserver, '/api/v1/namespaces/default/configmaps?watch=true', ['base64.binary.k8s.io', bearer(TOKEN)]);
    expect(socket.protocol).toBe('base64.binary.k8s.io');
    await socket.waitFor(1);
    const first = JSON.parse(socket.messages[0].text);
    expect(socket.messages[0].binary).toBe(false);
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'first' } } });
    await kubectl(['create', 'configmap', 'second', '--from-literal=b=2'], apiserver.kubectlEnv);
    await socket.waitFor(2);
    expect(JSON.parse(socket.messages[1].text)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'second' } } });
    socket.close();
  });

  it('watches Tables when the handshake names them in the accept parameter', async () => {
    const accept = encodeURIComponent('application/json;as=Table;v=v1;g=meta.k8s.io');
    const socket = await openSocket(apiserver, `/api/v1/namespaces/default/configmaps?watch=true&accept=${accept}`, ['x', bearer(TOKEN)]);
    await socket.waitFor(1);
    const event = JSON.parse(socket.messages[0].text);
    expect(event.type).toBe('ADDED');
    expect(event.object.kind).toBe('Table');
    expect(event.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(event.object.rows[0].cells[0]).toBe('first');
    socket.close();
  });

  it('refuses a bad token, a token with no other subprotocol, and what the user may not watch', async () => {
    await expect(openSocket(apiserver, '/api/v1/namespaces/default/configmaps?watch=true', ['x', bearer('wrong')])).rejects.toThrow('handshake answered 401');
    await expect(openSocket(apiserver, '/api/v1/namespaces/default/configmaps?watch=true', [bearer(TOKEN)])).rejects.toThrow('handshake answered 401');
    await expect(openSocket(apiserver, '/api/v1/namespaces/default/secrets?watch=true', ['x', bearer(TOKEN)])).rejects.toThrow('handshake answered 403');
    await expect(openSocket(apiserver, '/api/v1/configmaps?watch=true', ['x', bearer(TOKEN)])).rejects.toThrow('handshake answered 403');
  });
});
