import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { openChannelSocket, type ChannelSocket } from './support/channel-websocket';
import { kubectl, KUBECTL, runKubectl, spawnKubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { pythonClientUnavailable, runPythonClient } from './support/python-client';

const unavailable = localRuntimeUnavailable();
if (unavailable) console.warn(`Node agent stream tests against a local containerd are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;
const pythonUnavailable = unavailable ? undefined : pythonClientUnavailable();
if (pythonUnavailable) console.warn(`The official Python client's tests are skipped: ${pythonUnavailable}`);
const itWithPython = pythonUnavailable ? it.skip : it;

function httpGet(port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs kubectl with `input` on its stdin. */
function kubectlWithInput(args: string[], env: Record<string, string>, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describeWithRuntime('node agent: logs, exec and port-forward through the API server', () => {
  let cluster: NodeCluster;
  const env = () => cluster.env();
  /** The agent's count of bytes read from log files, from its own /metrics. */
  const logBytesRead = async (): Promise<number> => {
    const metrics = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: cluster.agent.port, path: '/metrics', rejectUnauthorized: false, timeout: 5_000 }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    return Number(/^nodeagent_container_log_read_bytes_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(metrics)?.[1] ?? Number.NaN);
  };

  beforeAll(async () => {
    // The bulky pod's 24 MB stay in one file: rotation (10Mi by default, checked every 10 s) has its own test.
    cluster = await startNodeCluster({ agent: { config: { containerLogMaxSize: '100Mi' } } });
    await cluster.runPod('talker', ['sh', '-c', 'echo hello from busybox; i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done']);
    await cluster.runPod('web', ['sh', '-c', 'mkdir -p /www && echo served by httpd > /www/index.html && exec httpd -f -p 8080 -h /www']);
    // About 24 MB of log, then a line long enough for the runtime to split it into P lines, then a last one.
    await cluster.runPod('bulky', [
      'sh',
      '-c',
      `yes ${'0123456789'.repeat(10)} | head -n 200000; head -c 40000 /dev/zero | tr '\\0' x; echo; echo last line; exec sleep 3600`,
    ]);
    await cluster.runPod('reader', ['sh', '-c', 'while read line; do echo "got $line"; done'], {
      containers: [{ name: 'reader', image: 'busybox:1.36', stdin: true, command: ['sh', '-c', 'while read line; do echo "got $line"; done'] }],
    });
    await eventually(
      async () => {
        expect((await cluster.getPod('talker')).status.phase).toBe('Running');
        expect((await cluster.getPod('web')).status.phase).toBe('Running');
        expect((await cluster.getPod('reader')).status.phase).toBe('Running');
        expect((await cluster.getPod('bulky')).status.phase).toBe('Running');
      },
      30_000,
      250,
    );
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('kubectl logs shows the output, with --tail, --timestamps and -f', async () => {
    await eventually(async () => expect((await kubectl(['logs', 'talker'], env())).stdout).toMatch(/^hello from busybox\ntick 1\n/), 10_000, 200);
    const tail = (await kubectl(['logs', 'talker', '--tail=2'], env())).stdout.trim().split('\n');
    expect(tail).toHaveLength(2);
    expect(tail[1]).toMatch(/^tick \d+$/);
    const stamped = (await kubectl(['logs', 'talker', '--tail=1', '--timestamps'], env())).stdout;
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z tick \d+\n$/);
    const follow = spawnKubectl(['logs', '-f', 'talker', '--tail=1'], env());
    try {
      const first = Number(/tick (\d+)/.exec(await follow.waitForOutput(/tick \d+\n/, 10_000))![1]);
      await follow.waitForOutput(new RegExp(`tick ${first + 3}\\n`), 10_000);
    } finally {
      await follow.stop();
    }
    const missing = await runKubectl(['logs', 'talker', '-c', 'nope'], env());
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('container nope is not valid for pod talker');
  }, 60_000);

  it('kubectl logs --tail reads from the end of a large log: the last records, P lines joined, and only the end read', async () => {
    const pod = await cluster.getPod('bulky');
    const file = join(cluster.agent.rootDir, 'pod-logs', `default_bulky_${pod.metadata.uid}`, 'bulky', '0.log');
    await eventually(async () => expect((await kubectl(['logs', 'bulky', '--tail=1'], env())).stdout).toBe('last line\n'), 30_000, 500);
    const size = (await stat(file)).size;
    expect(size).toBeGreaterThan(20_000_000);
    // The runtime split the long line: a tail counts it as one record.
    expect(await readFile(file, 'utf8').then((t) => / stdout P x+\n/.test(t.slice(-100_000)))).toBe(true);
    const before = await logBytesRead();
    const tail = (await kubectl(['logs', 'bulky', '--tail=3'], env())).stdout;
    const read = (await logBytesRead()) - before;
    expect(tail).toBe(`${'0123456789'.repeat(10)}\n${'x'.repeat(40000)}\nlast line\n`);
    expect(read).toBeLessThan(1_000_000);
    const stamped = (await kubectl(['logs', 'bulky', '--tail=2', '--timestamps', '--limit-bytes=100'], env())).stdout;
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z x+$/);
    expect(stamped).toHaveLength(100);
  }, 60_000);

  it('kubectl exec runs a command, passes stdin through and returns its exit code', async () => {
    const echo = await kubectl(['exec', 'talker', '--', 'sh', '-c', 'echo out; echo err >&2; hostname'], env());
    expect(echo.stdout).toBe('out\ntalker\n');
    expect(echo.stderr).toContain('err');
    const failed = await runKubectl(['exec', 'talker', '--', 'sh', '-c', 'exit 3'], env());
    expect(failed.code).toBe(3);
    const piped = await kubectlWithInput(['exec', '-i', 'talker', '-v=6', '--', 'sh', '-c', 'tr a-z A-Z; echo done'], env(), 'shout this\n');
    expect(piped.stdout).toBe('SHOUT THIS\ndone\n');
    expect(piped.code).toBe(0);
    // kubectl 1.32 speaks WebSocket v5 (translated by the agent); with it turned off, SPDY (relayed to the runtime).
    expect(piped.stderr).not.toMatch(/fallback/i);
    const spdy = await kubectlWithInput(
      ['exec', '-i', 'talker', '--', 'sh', '-c', 'cat; exit 4'],
      { ...env(), KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' },
      'over spdy\n',
    );
    expect([spdy.stdout, spdy.code]).toEqual(['over spdy\n', 4]);
  }, 60_000);

  it('kubectl port-forward reaches a busybox httpd in the pod', async () => {
    // kubectl 1.32 tunnels SPDY in a WebSocket; with that turned off it upgrades to SPDY itself.
    for (const websockets of ['true', 'false']) {
      const forward = spawnKubectl(['port-forward', 'pod/web', ':8080', '--address=127.0.0.1', '-v=6'], {
        ...env(),
        KUBECTL_PORT_FORWARD_WEBSOCKETS: websockets,
      });
      try {
        const output = await forward.waitForOutput(/Forwarding from 127\.0\.0\.1:(\d+) -> 8080/, 15_000);
        const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(output)![1]);
        for (let i = 0; i < 3; i++) expect(await httpGet(port)).toEqual({ status: 200, body: 'served by httpd\n' });
        if (websockets === 'true') {
          expect(forward.errors()).toContain('negotiated protocol: portforward.k8s.io');
          expect(forward.errors()).not.toMatch(/fallback/i);
        }
      } finally {
        await forward.stop();
      }
    }
  }, 60_000);

  describe('the WebSocket channel protocols as the Python client and kubectl speak them', () => {
    const STDIN = 0;
    const STDOUT = 1;
    const STDERR = 2;
    const ERROR = 3;
    const RESIZE = 4;
    const CLOSE = 255;
    const text = (socket: ChannelSocket, channel: number) => socket.received(channel).toString('utf8');
    const exec = (query: string, protocols: string[]) =>
      openChannelSocket(cluster.apiserver, `/api/v1/namespaces/default/pods/talker/exec?${query}`, protocols);

    it("v4 exec of /bin/sh with stdin=True, tty=False: the first stdout line is the command's output", async () => {
      const socket = await exec('command=%2Fbin%2Fsh&stderr=True&stdin=True&stdout=True&tty=False', ['v4.channel.k8s.io']);
      expect(socket.protocol).toBe('v4.channel.k8s.io');
      socket.send(STDIN, 'echo test string 1\n');
      await socket.waitFor((s) => text(s, STDOUT).includes('\n'));
      expect(text(socket, STDOUT).split('\n')[0]).toBe('test string 1');
      socket.send(STDIN, 'echo to stderr >&2; test -t 0 || echo no terminal\n');
      await socket.waitFor((s) => text(s, STDERR) === 'to stderr\n' && text(s, STDOUT).includes('no terminal\n'));
      socket.send(STDIN, 'exit 3\n');
      await socket.waitFor((s) => s.received(ERROR).length > 0);
      // Kubernetes' Status for an exit code, on the error channel, then the close.
      const status = JSON.parse(text(socket, ERROR));
      expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
      expect(status.message).toContain('exit code 3');
      await socket.closed;
      expect(socket.frames.some((f) => f.channel > RESIZE)).toBe(false);
    });

    it('v4 exec with a TTY: one output stream, resize on channel 4, Success on channel 3', async () => {
      const socket = await exec('command=sh&stdin=true&stdout=true&stderr=true&tty=true', ['v4.channel.k8s.io']);
      socket.send(RESIZE, JSON.stringify({ Width: 123, Height: 45 }));
      socket.send(STDIN, 'stty size; test -t 0 && echo terminal\r');
      await socket.waitFor((s) => /45 123\r\n/.test(text(s, STDOUT)) && /terminal\r\n/.test(text(s, STDOUT).replace(/test -t 0 && echo terminal/, '')));
      expect(socket.received(STDERR).length).toBe(0);
      socket.send(STDIN, 'exit\r');
      await socket.waitFor((s) => s.received(ERROR).length > 0);
      expect(JSON.parse(text(socket, ERROR))).toEqual({ metadata: {}, status: 'Success' });
      await socket.closed;
    });

    it('v5 exec (kubectl 1.32): stdin closed through channel 255 ends the command', async () => {
      const socket = await exec('command=cat&stdin=true&stdout=true&stderr=true', ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
      expect(socket.protocol).toBe('v5.channel.k8s.io');
      socket.send(STDIN, 'over v5\n');
      await socket.waitFor((s) => text(s, STDOUT) === 'over v5\n');
      socket.send(CLOSE, Buffer.from([STDIN]));
      await socket.waitFor((s) => s.received(ERROR).length > 0);
      expect(JSON.parse(text(socket, ERROR))).toEqual({ metadata: {}, status: 'Success' });
      expect((await socket.closed).code).toBe(1000);
    });

    it('v5 exec: stderr and a non-zero exit code as a Status, resize only with a TTY', async () => {
      const plain = await exec('command=sh&command=-c&command=echo%20out%3B%20echo%20err%20%3E%262%3B%20exit%207&stdout=true&stderr=true', [
        'v5.channel.k8s.io',
      ]);
      await plain.waitFor((s) => s.received(ERROR).length > 0);
      expect([text(plain, STDOUT), text(plain, STDERR)]).toEqual(['out\n', 'err\n']);
      expect(JSON.parse(text(plain, ERROR))).toMatchObject({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '7' }] },
      });
      await plain.closed;
      const terminal = await exec('command=sh&stdin=true&stdout=true&tty=true', ['v5.channel.k8s.io']);
      terminal.send(RESIZE, JSON.stringify({ Width: 77, Height: 22 }));
      terminal.send(STDIN, 'stty size\r');
      await terminal.waitFor((s) => /22 77\r\n/.test(text(s, STDOUT)));
      terminal.send(STDIN, 'exit\r');
      await terminal.waitFor((s) => s.received(ERROR).length > 0);
      expect(JSON.parse(text(terminal, ERROR))).toEqual({ metadata: {}, status: 'Success' });
    });

    it('kubectl attach -i over SPDY and over WebSocket v5', async () => {
      for (const websockets of ['false', 'true']) {
        const child = spawn(KUBECTL, ['attach', '-i', 'reader'], {
          env: { ...process.env, ...env(), KUBECTL_REMOTE_COMMAND_WEBSOCKETS: websockets },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        try {
          child.stdin.write(`attached ${websockets}\n`);
          await eventually(async () => expect(out).toContain(`got attached ${websockets}\n`), 15_000, 100);
        } finally {
          child.kill('SIGKILL');
        }
      }
    });

    it('v4 attach to a container with stdin', async () => {
      const socket = await openChannelSocket(cluster.apiserver, '/api/v1/namespaces/default/pods/reader/attach?stdin=True&stdout=True&stderr=True&tty=False', [
        'v4.channel.k8s.io',
      ]);
      socket.send(STDIN, 'hello attach\n');
      await socket.waitFor((s) => text(s, STDOUT).includes('got hello attach\n'));
      socket.close();
    });

    // The Python client's port-forward: channel 2n carries port n's data, 2n+1 its errors.
    for (const protocol of ['v4.channel.k8s.io']) {
      it(`port-forward over WebSocket (${protocol}): each channel's first frame is the port, then the bytes`, async () => {
        const socket = await openChannelSocket(cluster.apiserver, '/api/v1/namespaces/default/pods/web/portforward?ports=8080', [protocol]);
        expect(socket.protocol).toBe(protocol);
        const port = Buffer.from([8080 & 0xff, 8080 >> 8]);
        await socket.waitFor((s) => s.frames.filter((f) => f.channel <= 1).length >= 2);
        expect(socket.frames.slice(0, 2).map((f) => [f.channel, [...f.data]])).toEqual([
          [0, [...port]],
          [1, [...port]],
        ]);
        socket.send(0, 'GET / HTTP/1.0\r\nHost: web\r\n\r\n');
        await socket.waitFor((s) => s.received(0).toString('utf8').includes('served by httpd\n'));
        expect(s0(socket)).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
        expect(socket.received(1).subarray(2).length).toBe(0);
        socket.close();
      });
    }
    const s0 = (socket: ChannelSocket) => socket.received(0).subarray(2).toString('utf8');
  });

  itWithPython(
    'the official Python client: lists, writes, watches, execs with stdin and no terminal, forwards a port',
    async () => {
      const result = await runPythonClient<{
        pods: string[];
        configMap: Record<string, string>;
        watched: Array<[string, string]>;
        execOnce: string;
        exec: { stdout: string; stderr: string; returncode: number };
        portForward: { response: string; error: string | null };
      }>('streams.py', env());
      expect(result.pods).toEqual(expect.arrayContaining(['talker', 'web']));
      expect(result.configMap).toEqual({ written: 'by python' });
      expect(result.watched).toEqual(expect.arrayContaining([['ADDED', 'talker']]));
      expect(result.execOnce).toBe('out\n');
      // The first line read is the command's output (not a stray '\r'), and the exit code reaches the client.
      expect(result.exec).toEqual({ stdout: 'test string 1', stderr: 'test string 2', returncode: 3 });
      expect(result.portForward.response).toMatch(/^HTTP\/1\.[01] 200 OK\r\n[\s\S]*served by httpd\n$/);
      expect(result.portForward.error).toBeNull();
    },
    120_000,
  );

  it('an HTTP request to the pod IP is answered from this machine', async () => {
    const ip = (await cluster.getPod('web')).status.podIP;
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: ip, port: 8080, path: '/', timeout: 5_000 }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toEqual({ status: 200, body: 'served by httpd\n' });
  });
});
