import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { Client as GrpcClient, credentials, Metadata } from '@grpc/grpc-js';
import type { Container, Probe } from '@svc/api';
import type { CriClient } from '@svc/cri';
import { errorMessage } from '@svc/machinery';

export interface ProbeOutcome {
  ok: boolean;
  /** Why it failed, as Kubernetes words it in the `Unhealthy` event. */
  message: string;
}

type Handler = Pick<Probe, 'exec' | 'httpGet' | 'tcpSocket'> & { grpc?: Probe['grpc'] };

/** A named port (`http`) resolved against the container's ports; a number as it is. */
export function resolvePort(port: number | string, container: Container): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function httpGet(url: URL, headers: Record<string, string>, timeoutMs: number, redirects = 0): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'GET', headers: { 'User-Agent': 'svc-probe/1.0', Accept: '*/*', ...headers }, rejectUnauthorized: false, timeout: timeoutMs },
      (res) => {
        const status = res.statusCode ?? 0;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 10_240) body += chunk;
        });
        res.on('end', () => {
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location && redirects < 10) {
            const next = new URL(location, url);
            // Redirects to another host count as success, as Kubernetes' prober treats them.
            if (next.hostname !== url.hostname) resolve({ ok: true, message: '' });
            else void httpGet(next, headers, timeoutMs, redirects + 1).then(resolve);
            return;
          }
          resolve(status >= 200 && status < 400 ? { ok: true, message: '' } : { ok: false, message: `HTTP probe failed with statuscode: ${status}` });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')));
    req.on('error', (error) => resolve({ ok: false, message: `Get "${url.href}": ${errorMessage(error)}` }));
    req.end();
  });
}

function tcpSocket(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, message: `dial tcp ${host}:${port}: i/o timeout` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok: true, message: '' });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, message: `dial tcp ${host}:${port}: ${errorMessage(error)}` });
    });
  });
}

/** `grpc.health.v1.Health/Check`: the request's one field is the service name; SERVING is status 1. */
function grpcHealth(host: string, port: number, service: string, timeoutMs: number): Promise<ProbeOutcome> {
  const client = new GrpcClient(`${host}:${port}`, credentials.createInsecure());
  const name = Buffer.from(service, 'utf8');
  const request = service === '' ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, name.length]), name]);
  return new Promise<ProbeOutcome>((resolve) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (b: Buffer) => b,
      (b: Buffer) => b,
      request,
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (error, response?: Buffer) => {
        if (error) resolve({ ok: false, message: `failed to connect service "${host}:${port}" within ${timeoutMs / 1000}s: ${error.details}` });
        else {
          const status = response && response[0] === 0x08 ? response[1] : 0;
          resolve(
            status === 1
              ? { ok: true, message: '' }
              : { ok: false, message: `service unhealthy (responded with "${['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'][status] ?? status}")` },
          );
        }
      },
    );
  }).finally(() => client.close());
}

/**
 * Runs one probe or lifecycle handler against a container: exec through the runtime, an HTTP GET
 * (success 200-399), a TCP connect or a gRPC health check, with the probe's timeout.
 */
export async function runHandler(
  cri: CriClient,
  handler: Handler,
  container: Container,
  containerId: string,
  podIP: string,
  timeoutSeconds: number,
): Promise<ProbeOutcome> {
  const timeoutMs = Math.max(1, timeoutSeconds) * 1000;
  try {
    if (handler.exec) {
      const result = await cri.execSync(containerId, handler.exec.command ?? [], Math.max(1, timeoutSeconds));
      if (result.exitCode === 0) return { ok: true, message: '' };
      const output = Buffer.concat([Buffer.from(result.stdout), Buffer.from(result.stderr)])
        .toString('utf8')
        .trim();
      return { ok: false, message: output || `command ${JSON.stringify(handler.exec.command ?? [])} exited with ${result.exitCode}` };
    }
    if (handler.httpGet) {
      const get = handler.httpGet;
      const port = resolvePort(get.port, container);
      if (port === undefined) return { ok: false, message: `unknown port ${JSON.stringify(get.port)}` };
      const host = get.host || podIP;
      const scheme = (get.scheme ?? 'HTTP').toLowerCase();
      const path = get.path ?? '/';
      const url = new URL(`${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${path.startsWith('/') ? path : `/${path}`}`);
      const headers = Object.fromEntries((get.httpHeaders ?? []).map((h) => [h.name, h.value]));
      return await httpGet(url, headers, timeoutMs);
    }
    if (handler.tcpSocket) {
      const port = resolvePort(handler.tcpSocket.port, container);
      if (port === undefined) return { ok: false, message: `unknown port ${JSON.stringify(handler.tcpSocket.port)}` };
      return await tcpSocket(handler.tcpSocket.host || podIP, port, timeoutMs);
    }
    if (handler.grpc) return await grpcHealth(podIP, handler.grpc.port, handler.grpc.service ?? '', timeoutMs);
    return { ok: false, message: 'no handler' };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}
