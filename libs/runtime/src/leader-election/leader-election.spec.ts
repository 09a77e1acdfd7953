import 'reflect-metadata';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Secret } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { isConflict } from '@svc/machinery';
import { listerWatcherFor, type ListWatchClient } from '@svc/informers';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Manager } from '../manager/manager';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import type { Result } from '../reconcile/request';
import { eventually } from '../testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { delayed } from '../testing/delayed-lister-watcher';
import { parseControllerManagerOptions } from '@svc/options';
import { validateLeaderElectionConfig, DEFAULT_LEADER_ELECTION, leaderElectionConfigFromFlags } from './leader-election-options';

const silent = { info: () => undefined, error: () => undefined };
const TIMING = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 500 };
let env: TestEnvironment;
let n = 0;
const managers: Manager[] = [];

beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env?.stop();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

/** Makes `intruder` the holder of `lease`, reading it again when the leader renewed it in between. */
async function takeOver(lease: string): Promise<void> {
  const leases = env.client.leases.inNamespace('default');
  for (;;) {
    const current = await leases.get(lease);
    try {
      await leases.update({ ...current, spec: { ...current.spec, holderIdentity: 'intruder', renewTime: new Date().toISOString() } });
      return;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
}

function candidate(lease: string, seen: string[], id: string): Manager {
  @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'default', name: `count-${id}` })
  class Counting implements Reconcile {
    reconcile(request: Request): void {
      seen.push(`${id}:${request.name}`);
    }
  }
  const manager = new Manager({
    clientConfig: env.clientConfig,
    logger: silent,
    leaderElection: { resourceName: lease, resourceNamespace: 'default', identity: id, ...TIMING },
  });
  manager.add(new Counting());
  managers.push(manager);
  return manager;
}

async function leaseHolder(name: string): Promise<string | undefined> {
  return (await env.client.leases.inNamespace('default').get(name)).spec?.holderIdentity;
}

describe('leader election', () => {
  it('keeps the spec defaults and refuses inconsistent timings', () => {
    expect(DEFAULT_LEADER_ELECTION).toMatchObject({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceLock: 'leases' });
    expect(() => validateLeaderElectionConfig({ ...DEFAULT_LEADER_ELECTION, resourceName: 'x', renewDeadlineMs: 20_000 })).toThrow(/lease duration/);
    expect(() => validateLeaderElectionConfig({ ...DEFAULT_LEADER_ELECTION, resourceName: 'x', retryPeriodMs: 10_000 })).toThrow(/retry period/);
    expect(() => validateLeaderElectionConfig({ ...DEFAULT_LEADER_ELECTION, resourceName: 'x', renewDeadlineMs: 15_000 })).not.toThrow();
    const options = parseControllerManagerOptions(['--leader-elect-resource-name=cm', '--leader-elect-retry-period=1s']);
    if (options.action !== 'run') throw new Error('flags refused');
    expect(leaderElectionConfigFromFlags(options.options)).toMatchObject({
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 1_000,
      resourceLock: 'leases',
      resourceName: 'cm',
    });
    expect(() => validateLeaderElectionConfig({ ...DEFAULT_LEADER_ELECTION, resourceName: 'x', resourceLock: 'endpoints' as 'leases' })).toThrow(
      /not supported/,
    );
  });

  it('elects one leader of two managers; only it reconciles; a clean stop hands over at once', async () => {
    const lease = `le-${++n}`;
    const seen: string[] = [];
    const a = candidate(lease, seen, 'a');
    const b = candidate(lease, seen, 'b');
    await Promise.all([a.start(), b.start()]);
    await eventually(() => expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1));
    const [leader, standby] = a.isLeader() ? [a, b] : [b, a];
    expect(await leaseHolder(lease)).toBe(leader.identity);

    await env.client.configMaps.inNamespace('default').create({ metadata: { name: `${lease}-cm` } });
    await eventually(() => expect(seen).toContain(`${leader.identity}:${lease}-cm`));
    expect(seen.filter((s) => s.startsWith(`${standby.identity}:`))).toEqual([]);

    const stoppedAt = Date.now();
    await leader.stop();
    await eventually(() => expect(standby.isLeader()).toBe(true), 3_000, 10);
    // Released: the standby takes it on its next retry (0.6 s at most), not after the lease duration.
    expect(Date.now() - stoppedAt).toBeLessThan(TIMING.leaseDurationMs);
    const lease2 = (await env.client.leases.inNamespace('default').get(lease)).spec;
    expect(lease2?.holderIdentity).toBe(standby.identity);
    expect(lease2?.leaseTransitions).toBe(1);
    // The new leader starts from the whole current state.
    await eventually(() => expect(seen).toContain(`${standby.identity}:${lease}-cm`));
  });

  it('keeps a standby warm: its caches follow changes while it waits, and on failover it reconciles without listing again', async () => {
    const lease = `le-${++n}`;
    const seen: string[] = [];
    const a = candidate(lease, seen, 'a');
    const b = candidate(lease, seen, 'b');
    await Promise.all([a.start(), b.start()]);
    await eventually(() => expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1));
    const [leader, standby] = a.isLeader() ? [a, b] : [b, a];
    const lists = () => standby.informers.keys().map((key) => standby.informers.get(key)!.listCount);
    const listsBefore = lists();
    expect(listsBefore.every((count) => count === 1)).toBe(true);

    // A change made while it waits reaches the standby's cache, not its reconciler.
    const cm = await env.client.configMaps.inNamespace('default').create({ metadata: { name: `${lease}-warm` } });
    const cached = () => standby.informerFor(BUILTIN_RESOURCES.configMaps, 'default').indexer.getByKey(`default/${lease}-warm`);
    await eventually(() => expect(cached()?.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion));
    expect(seen.filter((s) => s.startsWith(`${standby.identity}:`))).toEqual([]);

    await leader.stop();
    const tookOver = await eventually(() => {
      expect(standby.isLeader()).toBe(true);
      return Date.now();
    });
    await eventually(() => expect(seen).toContain(`${standby.identity}:${lease}-warm`));
    // Within one retry period of taking the lease (generous for a loaded machine), from the cache it already had.
    expect(Date.now() - tookOver).toBeLessThan(TIMING.retryPeriodMs + 1_000);
    expect(lists()).toEqual(listsBefore);
  });

  it('replaces a leader that died without releasing within lease duration plus retry period', async () => {
    const lease = `le-${++n}`;
    const a = candidate(lease, [], 'a');
    await a.start();
    await eventually(() => expect(a.isLeader()).toBe(true));
    const b = candidate(lease, [], 'b');
    await b.start();
    await new Promise((resolve) => setTimeout(resolve, TIMING.retryPeriodMs * 2));
    expect(b.isLeader()).toBe(false);

    const killedAt = Date.now();
    await a.stop({ releaseLease: false });
    expect(await leaseHolder(lease)).toBe('a');
    await eventually(() => expect(b.isLeader()).toBe(true), 5_000, 10);
    const took = Date.now() - killedAt;
    expect(took).toBeLessThanOrEqual(TIMING.leaseDurationMs + TIMING.retryPeriodMs * 1.2 + 500);
    expect(await leaseHolder(lease)).toBe('b');
  });

  it('a stop waits at most one retry period for the release when the API server no longer answers', async () => {
    // A relay to the API server that, once stalled, passes no byte either way: the server is there but mute.
    let stalled = false;
    const sockets = new Set<Socket>();
    const relay = createServer((inbound) => {
      const outbound = connect(Number(new URL(env.clientConfig.server).port), '127.0.0.1');
      for (const [from, to] of [
        [inbound, outbound],
        [outbound, inbound],
      ]) {
        sockets.add(from);
        from.on('data', (chunk: Buffer) => stalled || to.write(chunk));
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
      }
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const lease = `le-${++n}`;
      const manager = new Manager({
        clientConfig: { ...env.clientConfig, server: `https://127.0.0.1:${(relay.address() as AddressInfo).port}` },
        logger: silent,
        leaderElection: { resourceName: lease, resourceNamespace: 'default', identity: 'mute', ...TIMING },
      });
      await manager.start();
      await eventually(() => expect(manager.isLeader()).toBe(true));
      stalled = true;
      const since = Date.now();
      await manager.stop();
      expect(Date.now() - since).toBeLessThan(TIMING.retryPeriodMs + 1_000);
      // The release never arrived: the lease is left to expire, as after a crash.
      expect(await leaseHolder(lease)).toBe('mute');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  it('shows who leads: elected, leader(), and the leader and process metrics on /metrics', async () => {
    const lease = `le-${++n}`;
    const make = (id: string) => {
      const manager = new Manager({
        clientConfig: env.clientConfig,
        logger: silent,
        http: { port: 0 },
        leaderElection: { resourceName: lease, resourceNamespace: 'default', identity: id, ...TIMING },
      });
      managers.push(manager);
      return manager;
    };
    const a = make('a');
    const b = make('b');
    const metrics = async (m: Manager) => (await fetch(`http://127.0.0.1:${m.port}/metrics`)).text();
    await Promise.all([a.start(), b.start()]);
    const first = await Promise.race([a.elected.then(() => a), b.elected.then(() => b)]);
    const standby = first === a ? b : a;
    expect(first.isLeader()).toBe(true);
    await eventually(() => expect(standby.leader()).toBe(first.identity));
    expect(first.leader()).toBe(first.identity);
    expect(await metrics(first)).toContain(`leader_election_master_status{name="${lease}"} 1`);
    const standbyMetrics = await metrics(standby);
    expect(standbyMetrics).toContain(`leader_election_master_status{name="${lease}"} 0`);
    for (const family of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(standbyMetrics).toContain(`# TYPE ${family} `);
    }
    await first.stop();
    await standby.elected;
    expect(await metrics(standby)).toContain(`leader_election_master_status{name="${lease}"} 1`);
  });

  it('stops reconciling when it cannot renew, before its lease could expire', async () => {
    const lease = `le-${++n}`;
    const a = candidate(lease, [], 'a');
    await a.start();
    await eventually(() => expect(a.isLeader()).toBe(true));
    expect(a.getControllers()[0].running).toBe(true);
    // Someone else takes the lease over: every renewal of `a` fails from now on.
    const takenAt = Date.now();
    await takeOver(lease);
    await eventually(() => expect(a.isLeader()).toBe(false), 5_000, 10);
    expect(a.getControllers()[0].running).toBe(false);
    // Before the lease it last renewed could have expired for anyone else.
    expect(Date.now() - takenAt).toBeLessThan(TIMING.leaseDurationMs);
  });

  it('renews on a client of its own while the controllers saturate theirs', async () => {
    const lease = `le-${++n}`;
    let served = 0;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, namespace: 'default', name: `flood-${lease}` })
    class Flooding implements Reconcile {
      async reconcile(request: Request, { client, signal }: ReconcileContext): Promise<void> {
        // Far more requests than the limiter lets through in the whole test: each waits for a token.
        const reads = Array.from({ length: 200 }, () =>
          client.configMaps
            .get(request.name, { namespace: 'default', signal })
            .then(() => served++)
            .catch(() => undefined),
        );
        await Promise.all(reads);
      }
    }
    const renewFailures: string[] = [];
    const manager = new Manager({
      clientConfig: { ...env.clientConfig, qps: 2, burst: 2 },
      logger: { info: () => undefined, error: (message) => renewFailures.push(message) },
      gracefulShutdownMs: 100,
      leaderElection: { resourceName: lease, resourceNamespace: 'default', identity: 'a', ...TIMING },
    });
    manager.add(new Flooding());
    managers.push(manager);
    await env.client.configMaps.inNamespace('default').create({ metadata: { name: `${lease}-cm` } });
    await manager.start();
    await eventually(() => expect(manager.isLeader()).toBe(true));

    // Follow the lease from outside for three lease durations: every renewal is seen.
    const renewals: number[] = [];
    let leaderThroughout = true;
    const until = Date.now() + 3 * TIMING.leaseDurationMs;
    while (Date.now() < until) {
      const spec = (await env.client.leases.inNamespace('default').get(lease)).spec;
      expect(spec?.holderIdentity).toBe('a');
      const renewed = Date.parse(spec?.renewTime ?? '');
      if (renewals.at(-1) !== renewed) renewals.push(renewed);
      leaderThroughout &&= manager.isLeader();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The controllers' limiter was saturated the whole time: most of their reads still wait.
    expect(served).toBeLessThan((2 * (3 * TIMING.leaseDurationMs)) / 1000 + 4);
    expect(leaderThroughout).toBe(true);
    expect(renewFailures.filter((m) => m.includes('leader election'))).toEqual([]);
    const gaps = renewals.slice(1).map((at, i) => at - renewals[i]);
    // A renewal is a read and a write: its own limiter (the same qps, 2) lets one through a second.
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...gaps)).toBeLessThan(TIMING.renewDeadlineMs);
  });

  it('after a lost lease, the next term acts on nothing older than the writes of the last one', async () => {
    const lease = `le-${++n}`;
    const space = lease;
    await env.client.namespaces.create({ metadata: { name: space } });
    const manager = new Manager({
      // Slow: the creates of one reconcile span the loss of the lease.
      clientConfig: { ...env.clientConfig, qps: 4, burst: 1 },
      logger: silent,
      leaderElection: { resourceName: lease, resourceNamespace: 'default', identity: 'a', ...TIMING },
    });
    managers.push(manager);
    // The owned cache lags, so a view older than the last term's creates is there to be acted on.
    const secrets = manager.informers.informerFor<Secret>({ resource: 'v1/secrets', namespace: space }, () =>
      delayed(listerWatcherFor(env.client.secrets as unknown as ListWatchClient<Secret>, { namespace: space }), 300),
    );
    const want = 10;
    @Reconciler({ for: BUILTIN_RESOURCES.configMaps, owns: [BUILTIN_RESOURCES.secrets], namespace: space, name: `copies-${lease}` })
    class Copies implements Reconcile {
      async reconcile(request: Request, { client, expectations }: ReconcileContext): Promise<Result> {
        if (!expectations.satisfied()) return {};
        const owner = manager.informerFor(BUILTIN_RESOURCES.configMaps, space).lister().namespace(space).get(request.name);
        const mine = secrets.lister().namespace(space).list().length;
        if (!owner || mine >= want) return {};
        expectations.expectCreations(want - mine);
        // Ignores its signal: only the withdrawal of its writes stops it.
        for (let i = mine; i < want; i++) {
          await client.secrets
            .create(
              {
                metadata: {
                  generateName: 'copy-',
                  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: request.name, uid: owner.metadata!.uid!, controller: true }],
                },
              },
              { namespace: space },
            )
            .catch(() => expectations.creationObserved());
        }
        return {};
      }
    }
    manager.add(new Copies());
    await manager.start();
    await eventually(() => expect(manager.isLeader()).toBe(true));

    let most = 0;
    const list = await env.client.secrets.list({ namespace: space });
    const watch = await env.client.secrets.watch({ namespace: space, resourceVersion: list.metadata.resourceVersion });
    const names = new Set<string>();
    const following = (async () => {
      for await (const event of watch) {
        if (event.type === 'ADDED') names.add(event.object.metadata!.name!);
        if (event.type === 'DELETED') names.delete(event.object.metadata!.name!);
        most = Math.max(most, names.size);
      }
    })();
    try {
      await env.client.configMaps.inNamespace(space).create({ metadata: { name: 'o' } });
      await eventually(() => expect(names.size).toBeGreaterThanOrEqual(2), 5_000, 10);
      // Someone else takes the lease: the term ends mid-reconcile; the lease lapses and `a` leads again.
      await takeOver(lease);
      await eventually(() => expect(manager.isLeader()).toBe(false), 5_000, 10);
      await eventually(() => expect(manager.isLeader()).toBe(true), 10_000, 10);
      await eventually(() => expect(names.size).toBe(want), 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      watch.stop();
      await following.catch(() => undefined);
    }
    expect(names.size).toBe(want);
    expect(most).toBe(want);
  });
});
