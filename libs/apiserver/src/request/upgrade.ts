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
