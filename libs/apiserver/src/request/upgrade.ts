import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

interface UpgradeState {
  socket: Duplex;
  head: Buffer;
  response: ServerResponse;
  taken: boolean;
}

const upgrades = new WeakMap<IncomingMessage, UpgradeState>();

/** Marks a request that arrived as an HTTP upgrade (WebSocket, SPDY), with its connection and first bytes. */
export function markUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, response: ServerResponse): void {
  upgrades.set(req, { socket, head, response, taken: false });
}

/**
 * The connection of an upgrade request, handed over once to whoever streams it (the response is
 * detached, so nothing more is written through it); undefined for an ordinary request.
 */
export function takeUpgrade(req: IncomingMessage): { socket: Duplex; head: Buffer } | undefined {
  const state = upgrades.get(req);
  if (!state || state.taken) return undefined;
  state.taken = true;
  state.response.detachSocket(state.socket as Parameters<ServerResponse['detachSocket']>[0]);
  return { socket: state.socket, head: state.head };
}

export function isUpgrade(req: IncomingMessage): boolean {
  return upgrades.has(req);
}

export function upgradeTaken(req: IncomingMessage): boolean {
  return upgrades.get(req)?.taken === true;
}

/** True for a WebSocket handshake (`Connection: Upgrade`, `Upgrade: websocket`). */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  const connection = (req.headers.connection ?? '').toLowerCase();
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  return upgrade === 'websocket' && connection.split(',').some((token) => token.trim() === 'upgrade');
}

/**
 * The media types a request accepts. A browser cannot set headers on a WebSocket, so a WebSocket
 * handshake without an `Accept` header may name them in the `accept` query parameter instead (a
 * watch of Tables for the console); every other request is negotiated from its header alone.
 */
export function acceptOf(req: IncomingMessage, params: URLSearchParams): string | undefined {
  if (req.headers.accept !== undefined || !isUpgrade(req) || !isWebSocketRequest(req)) return req.headers.accept;
  return params.get('accept') ?? undefined;
}
