import { writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { HttpsTarget } from './https-client';
import { startApiServer, type RunningServer } from './server-processes';
import { summarize, type LatencySummary } from './stats';
import { positiveFromEnv } from '../support/env-number';

/**
 * API Priority and Fairness under a flood: a well-behaved client (one user, a few connections, GETs
 * of one ConfigMap) measured alone, then while another user LISTs a namespace of many ConfigMaps as
 * fast as its connections allow, windows of the two alternating. Both users are in the same priority
 * level (global-default), each its own flow; neither is in system:masters, which APF exempts. The
 * server runs with Kubernetes' default seats (400 + 200).
 */
const FLOOD_CONNECTIONS = positiveFromEnv('APISERVER_BENCH_FLOOD_CONNECTIONS', 64);
const POLITE_CONNECTIONS = positiveFromEnv('APISERVER_BENCH_POLITE_CONNECTIONS', 2);
const FLOOD_OBJECTS = positiveFromEnv('APISERVER_BENCH_FLOOD_OBJECTS', 500);
const WINDOW_MS = positiveFromEnv('APISERVER_BENCH_FAIRNESS_SECONDS', 3, { integer: false }) * 1000;
const FAIRNESS_ROUNDS = positiveFromEnv('APISERVER_BENCH_FAIRNESS_ROUNDS', 3);

const TOKENS = 'flooder-token,flooder,uid-flooder,flooders\npolite-token,polite,uid-polite,polite\nadmin-token,admin,uid-admin,system:masters\n';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function call(agent: Agent, target: HttpsTarget, token: string, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = httpsRequest({ agent, host: target.host, port: target.port, method, path, headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface FairnessResult {
  quiet: LatencySummary & { operations: number };
  flooded: LatencySummary & { operations: number };
  flood: { operations: number; rejected: number; resets: number; perSecond: number };
}

/** Closed loops of `connections` workers calling `once` until `until`; the latencies in ms. */
async function loop(connections: number, until: number, once: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const start = process.hrtime.bigint();
        // A connection reset is the transport's, not the server's answer: that request is not counted.
        const status = await once().catch(() => undefined);
        if (status === undefined) continue;
        if (status !== 200 && status !== 201) throw new Error(`the well-behaved client was answered ${status}`);
        samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }),
  );
  return samples;
}

export async function fairnessRow(dir: string, servers: RunningServer[]): Promise<FairnessResult> {
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, TOKENS);
  const api = await startApiServer(join(dir, 'apiserver-apf'), [
    '--enable-priority-and-fairness=true',
    '--max-requests-inflight=400',
    '--max-mutating-requests-inflight=200',
    '--authorization-mode=AlwaysAllow',
    `--token-auth-file=${tokens}`,
    '--store-count-metric-poll-period=1s',
  ]);
  servers.push(api);
  const agent = new Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS + POLITE_CONNECTIONS + 8, ca: api.target.ca });
  try {
    const target = api.target;
    for (const name of ['bench-flood', 'bench-polite']) {
      await call(agent, target, 'admin-token', 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name } }));
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < FLOOD_OBJECTS) {
          const i = next++;
          const body = JSON.stringify({ metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(800) } });
          await call(agent, target, 'admin-token', 'POST', '/api/v1/namespaces/bench-flood/configmaps', body);
        }
      }),
    );
    await call(agent, target, 'admin-token', 'POST', '/api/v1/namespaces/bench-polite/configmaps', JSON.stringify({ metadata: { name: 'one' } }));
    // The suggested configuration is written by a post-start hook, and the object count is polled each second.
    for (let i = 0; ; i++) {
      const probe = await call(agent, target, 'polite-token', 'GET', '/api/v1/namespaces/bench-polite/configmaps/one');
      if (probe.headers['x-kubernetes-pf-flowschema-uid']) break;
      if (i > 100) throw new Error('the API server never named a flow schema: is priority and fairness on?');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const politeOnce = async (): Promise<number> => (await call(agent, target, 'polite-token', 'GET', '/api/v1/namespaces/bench-polite/configmaps/one')).status;
    const quiet: number[] = [];
    const flooded: number[] = [];
    const flood = { operations: 0, rejected: 0, resets: 0, ms: 0 };
    for (let round = 0; round < FAIRNESS_ROUNDS; round++) {
      quiet.push(...(await loop(POLITE_CONNECTIONS, Date.now() + WINDOW_MS, politeOnce)));
      let flooding = true;
      const flooders = Array.from({ length: FLOOD_CONNECTIONS }, async () => {
        while (flooding) {
          try {
            const answer = await call(agent, target, 'flooder-token', 'GET', '/api/v1/namespaces/bench-flood/configmaps');
            flood.operations++;
            if (answer.status === 429) flood.rejected++;
          } catch {
            // A kept-alive connection the server closed meanwhile: the flood goes on on a new one.
            flood.resets++;
          }
        }
      });
      // The flood takes its seats before the measured window opens.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      flooded.push(...(await loop(POLITE_CONNECTIONS, Date.now() + WINDOW_MS, politeOnce)));
      flooding = false;
      await Promise.all(flooders);
      flood.ms += Date.now() - started;
    }
    return {
      quiet: { ...summarize(quiet), operations: quiet.length },
      flooded: { ...summarize(flooded), operations: flooded.length },
      flood: { operations: flood.operations, rejected: flood.rejected, resets: flood.resets, perSecond: flood.operations / (flood.ms / 1000) },
    };
  } finally {
    agent.destroy();
  }
}
