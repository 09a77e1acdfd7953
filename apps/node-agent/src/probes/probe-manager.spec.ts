import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container, Pod } from '@svc/api';
import type { CriClient } from '@svc/cri';
import { ProbeManager } from './probe-manager';
import { runHandler } from './handler-runner';

const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { containers: [] } };

/** A runtime whose exec probes answer from a script of exit codes, recording when and with what timeout they ran. */
function scriptedRuntime(exitCodes: number[]) {
  const runs: Array<{ at: number; timeoutSeconds: number }> = [];
  const cri = {
    execSync: async (_id: string, _cmd: readonly string[], timeoutSeconds: number) => {
      runs.push({ at: Date.now(), timeoutSeconds });
      const exitCode = exitCodes.length > 1 ? exitCodes.shift()! : (exitCodes[0] ?? 0);
      return { exitCode, stdout: new Uint8Array(), stderr: new Uint8Array() };
    },
  } as unknown as CriClient;
  return { cri, runs };
}

function listener() {
  const changes: string[] = [];
  const unhealthy: string[] = [];
  return {
    changes,
    unhealthy,
    listener: {
      changed: (uid: string) => changes.push(uid),
      unhealthy: (_uid: string, id: string, kind: string) => unhealthy.push(`${id}:${kind}`),
      event: () => undefined,
    },
  };
}

async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
}

describe('ProbeManager', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('runs the first probe after initialDelaySeconds (counted from the container start), then every periodSeconds', async () => {
    const runtime = scriptedRuntime([0]);
    const events = listener();
    const probes = new ProbeManager(runtime.cri, events.listener);
    const container: Container = { name: 'main', image: 'x', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 2 } };
    // The container started a second ago: four seconds of the delay are left.
    probes.add(pod, container, 'c1', Date.now() - 1_000, () => '');
    await advance(3_900);
    expect(runtime.runs).toHaveLength(0);
    expect(probes.isReady('c1')).toBe(false);
    await advance(200);
    expect(runtime.runs.map((r) => r.at - 1_000_000)).toEqual([4_000]);
    expect(probes.isReady('c1')).toBe(true);
    await advance(4_000);
    expect(runtime.runs.map((r) => r.at - 1_000_000)).toEqual([4_000, 6_000, 8_000]);
    probes.stop();
  });

  it('gives each run timeoutSeconds', async () => {
    const runtime = scriptedRuntime([0]);
    const probes = new ProbeManager(runtime.cri, listener().listener);
    probes.add(pod, { name: 'main', image: 'x', livenessProbe: { exec: { command: ['true'] }, timeoutSeconds: 7 } }, 'c1', Date.now(), () => '');
    await advance(10);
    expect(runtime.runs[0].timeoutSeconds).toBe(7);
    probes.stop();
  });

  it('counts a readiness success only after successThreshold in a row; one failure starts the count again', async () => {
    // fail, ok, ok, fail, ok, ok, ok
    const runtime = scriptedRuntime([1, 0, 0, 1, 0, 0, 0]);
    const events = listener();
    const probes = new ProbeManager(runtime.cri, events.listener);
    probes.add(
      pod,
      { name: 'main', image: 'x', readinessProbe: { exec: { command: ['check'] }, periodSeconds: 1, successThreshold: 3, failureThreshold: 1 } },
      'c1',
      Date.now(),
      () => '',
    );
    const readiness: boolean[] = [];
    await advance(10);
    readiness.push(probes.isReady('c1'));
    for (let i = 0; i < 6; i++) {
      await advance(1_000);
      readiness.push(probes.isReady('c1'));
    }
    expect(readiness).toEqual([false, false, false, false, false, false, true]);
    expect(events.changes).toEqual(['uid-1']);
    probes.stop();
  });

  it('restarts on liveness only after failureThreshold failures in a row', async () => {
    const runtime = scriptedRuntime([1, 1, 0, 1, 1, 1]);
    const events = listener();
    const probes = new ProbeManager(runtime.cri, events.listener);
    probes.add(
      pod,
      { name: 'main', image: 'x', livenessProbe: { exec: { command: ['check'] }, periodSeconds: 1, failureThreshold: 3 } },
      'c1',
      Date.now(),
      () => '',
    );
    await advance(10 + 4_000);
    expect(events.unhealthy).toEqual([]);
    await advance(1_000);
    expect(events.unhealthy).toEqual(['c1:liveness']);
    probes.stop();
  });
});

describe('runHandler: timeoutSeconds of an httpGet probe', () => {
  let server: Server;
  beforeAll(async () => {
    // Answers only after 3 s.
    server = createServer((_req, res) => setTimeout(() => res.end('late'), 3_000).unref());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails when the answer takes longer than timeoutSeconds, and succeeds when it does not', async () => {
    const port = (server.address() as AddressInfo).port;
    const container: Container = { name: 'main', image: 'x' };
    const quick = await runHandler({} as CriClient, { httpGet: { port, path: '/' } }, container, 'c1', '127.0.0.1', 1);
    expect(quick).toEqual({ ok: false, message: expect.stringMatching(/Client\.Timeout exceeded/) });
    const patient = await runHandler({} as CriClient, { httpGet: { port, path: '/' } }, container, 'c1', '127.0.0.1', 5);
    expect(patient.ok).toBe(true);
  }, 20_000);
});
