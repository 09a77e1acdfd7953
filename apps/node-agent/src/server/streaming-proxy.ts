import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Pod } from '@svc/api';
import type { NodeAgentConfiguration } from '../config/node-agent-configuration';
import type { NodeAgent } from '../node-agent';
import { rejectUpgrade } from './node-agent-servers';

/** exec, attach and port-forward streams, between the client and the runtime's streaming server. */
export class StreamingProxy {
  constructor(
    private readonly agent: NodeAgent,
    private readonly config: NodeAgentConfiguration,
    private readonly log: (message: string) => void,
  ) {}

  async execOrAttach(
    _kind: 'exec' | 'attach',
    _req: IncomingMessage,
    socket: Duplex,
    _head: Buffer,
    _pod: Pod,
    _container: string,
    _params: URLSearchParams,
  ): Promise<void> {
    rejectUpgrade(socket, 501, 'not implemented yet');
  }

  async portForward(_req: IncomingMessage, socket: Duplex, _head: Buffer, _pod: Pod, _params: URLSearchParams): Promise<void> {
    rejectUpgrade(socket, 501, 'not implemented yet');
  }
}
