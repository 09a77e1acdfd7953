import { request as httpsRequest, type Agent } from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { spliceDuplex, type UserInfo } from '@svc/machinery';
import { requestContext } from '../request/request-context';
import { DROPPED_PROXY_REQUEST_HEADERS, HOP_BY_HOP_HEADERS } from '../request/proxied-headers';
import { isUpgrade, takeUpgrade } from '../request/upgrade';
import { hostForUrl, identityHeaders, type IdentityHeaderNames, type ResolvedBackend } from './api-service-backend';

// The server it is proxied to sees the caller only through the identity headers this server adds.
const DROPPED = DROPPED_PROXY_REQUEST_HEADERS;
const DROPPED_RESPONSE: ReadonlySet<string> = new Set(HOP_BY_HOP_HEADERS);
// The answer head of a refused upgrade is read up to this size, and its body passed on up to this one.
const MAX_UPGRADE_HEAD_BYTES = 64 * 1024;
const MAX_REFUSED_UPGRADE_BODY_BYTES = 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

/** Kubernetes' proxyError: a plain-text answer (kube-aggregator's http.Error), which kubectl reads as "the server is currently unable to handle the request". */
export function plainError(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(`${message}\n`),
  });
  res.end(`${message}\n`);
}

export interface ApiServiceProxyTarget {
  backend: ResolvedBackend;
  tls: ConnectionOptions;
  /** Reused connections for ordinary requests to this backend with these TLS settings. */
  agent: Agent;
  headerNames: IdentityHeaderNames;
  /** Every identity header name this server reads (`--requestheader-*`), dropped from what the caller sent. */
  strippedHeaders: (lowerName: string) => boolean;
}

function forwardedHeaders(req: IncomingMessage, user: UserInfo, target: ApiServiceProxyTarget, keepUpgrade: boolean): Array<[string, string]> {
  const named = new Set((req.headers.connection ?? '').split(',').map((t) => t.trim().toLowerCase()));
  const out: Array<[string, string]> = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const lower = name.toLowerCase();
    const upgradeHeader = keepUpgrade && (lower === 'connection' || lower === 'upgrade');
    if (!upgradeHeader && (DROPPED.has(lower) || named.has(lower))) continue;
    if (lower.startsWith('impersonate-') || target.strippedHeaders(lower)) continue;
    out.push([name, req.rawHeaders[i + 1]]);
  }
  out.push(['Host', `${hostForUrl(target.backend.host)}:${target.backend.port}`]);
  out.push(...identityHeaders(user, target.headerNames));
  return out;
}

/**
 * Kubernetes' UpgradeAwareHandler as kube-aggregator uses it: the request, with the caller as identity
 * headers, to the backend over TLS with the front-proxy certificate; the answer streamed back as it
 * comes; an upgrade spliced byte for byte once the backend switched protocols, and the backend
 * connection closed when it refused to.
 */
export async function proxyToBackend(req: IncomingMessage, res: ServerResponse, target: ApiServiceProxyTarget): Promise<void> {
  const user = requestContext(req).user;
  if (user === undefined) return plainError(res, 500, 'missing user');
  const path = req.url ?? '/';
  if (isUpgrade(req)) {
    const upgrade = takeUpgrade(req);
    if (upgrade) return upgradeTo(req, path, user, target, upgrade.socket, upgrade.head);
  }
  await new Promise<void>((resolve) => {
    let answered = false;
    const upstream = httpsRequest(
      {
        host: target.backend.host,
        port: target.backend.port,
        method: req.method ?? 'GET',
        path,
        headers: forwardedHeaders(req, user, target, false).flat() as unknown as OutgoingHttpHeaders,
        setHost: false,
        ...target.tls,
        agent: target.agent,
        timeout: CONNECT_TIMEOUT_MS,
      },
      (answer) => {
        answered = true;
        upstream.setTimeout(0);
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const lower = answer.rawHeaders[i].toLowerCase();
          if (DROPPED_RESPONSE.has(lower)) continue;
          res.appendHeader(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
        }
        res.writeHead(answer.statusCode ?? 502);
        res.flushHeaders();
        answer.pipe(res);
        answer.on('end', () => resolve());
        answer.on('error', () => {
          res.destroy();
          resolve();
        });
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error(`dial tcp ${hostForUrl(target.backend.host)}:${target.backend.port}: i/o timeout`)));
    upstream.on('error', (error) => {
      if (answered) res.destroy();
      // The responder of kube-aggregator: 503 with the reason, plain text.
      else plainError(res, 503, `error trying to reach service: ${error.message}`);
      resolve();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
}

function refuseUpgrade(socket: Duplex, code: number, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${code} ${code === 503 ? 'Service Unavailable' : 'Internal Server Error'}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function upgradeTo(req: IncomingMessage, path: string, user: UserInfo, target: ApiServiceProxyTarget, socket: Duplex, head: Buffer): Promise<void> {
  let upstream: Duplex;
  try {
    upstream = await new Promise<Duplex>((resolve, reject) => {
      const connection = tlsConnect({ host: target.backend.host, port: target.backend.port, ...target.tls }, () => resolve(connection));
      connection.setTimeout(CONNECT_TIMEOUT_MS, () => connection.destroy(new Error('i/o timeout')));
      connection.once('error', reject);
    });
  } catch (error) {
    return refuseUpgrade(socket, 503, `error trying to reach service: ${error instanceof Error ? error.message : String(error)}`);
  }
  (upstream as Duplex & { setTimeout(ms: number): void }).setTimeout(0);
  const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`, ...forwardedHeaders(req, user, target, true).map(([n, v]) => `${n}: ${v}`)];
  upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
  // Nothing of the client's reaches the backend until it has switched protocols (the client's first bytes wait).
  socket.pause();
  upstream.on('error', () => upstream.destroy());
  socket.on('error', () => socket.destroy());
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buffered.length > MAX_UPGRADE_HEAD_BYTES) {
        upstream.destroy();
        refuseUpgrade(socket, 503, 'error trying to reach service: the answer to the upgrade is too large');
      }
      return;
    }
    upstream.off('data', onData);
    upstream.off('close', onClose);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0);
    if (status === 101) {
      upstream.pause();
      socket.write(buffered);
      if (head.length > 0) upstream.write(head);
      socket.resume();
      spliceDuplex(upstream, socket);
      upstream.resume();
      return;
    }
    passRefusal(buffered, end, upstream, socket);
  };
  const onClose = (): void => refuseUpgrade(socket, 503, 'error trying to reach service: the connection closed before an answer');
  upstream.on('data', onData);
  upstream.once('close', onClose);
}

/**
 * The backend answered the upgrade with something other than 101: its answer goes to the client (its
 * body up to a bound), and the backend connection is closed, never reused nor joined to the client's,
 * so the client cannot send anything more over this server's credentials (CVE-2018-1002105).
 */
function passRefusal(buffered: Buffer, headEnd: number, upstream: Duplex, socket: Duplex): void {
  const headText = buffered.subarray(0, headEnd).toString('latin1');
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1] ?? NaN);
  const wanted = Number.isFinite(length) ? Math.min(length, MAX_REFUSED_UPGRADE_BODY_BYTES) : MAX_REFUSED_UPGRADE_BODY_BYTES;
  let body = buffered.subarray(headEnd + 4);
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    upstream.destroy();
    const head = headText
      .split('\r\n')
      .filter((line) => !/^(connection|keep-alive|content-length|transfer-encoding):/i.test(line))
      .join('\r\n');
    const sent = body.subarray(0, wanted);
    socket.end(Buffer.concat([Buffer.from(`${head}\r\nContent-Length: ${sent.length}\r\nConnection: close\r\n\r\n`, 'latin1'), sent]));
  };
  if (body.length >= wanted) return finish();
  const timer = setTimeout(finish, 5_000);
  timer.unref();
  upstream.on('data', (chunk: Buffer) => {
    body = Buffer.concat([body, chunk]);
    if (body.length >= wanted) {
      clearTimeout(timer);
      finish();
    }
  });
  upstream.once('close', () => {
    clearTimeout(timer);
    finish();
  });
}
