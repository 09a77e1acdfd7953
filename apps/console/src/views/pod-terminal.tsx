import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import { bearerProtocol, socketUrl } from '../api/client';
import type { WireObject } from '../api/watch';
import { containerNames } from './pod-logs';

const V5 = 'v5.channel.k8s.io';
const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/**
 * A terminal in a container: exec over a WebSocket with Kubernetes' channel protocol v5 (kubectl's),
 * the token in the bearer subprotocol. Keystrokes go to stdin, the terminal's size to the resize
 * channel; the exit status ends the session. What is typed while the socket still opens waits and
 * goes first once it is open (the container's terminal holds it until the shell reads), so a user
 * who types at once loses nothing.
 */
export function PodTerminal({ pod }: { pod: WireObject }) {
  const names = containerNames(pod);
  const [container, setContainer] = useState(names[0] ?? '');
  const [command, setCommand] = useState('sh');
  const [session, setSession] = useState<{ container: string; command: string; n: number } | undefined>();
  const [state, setState] = useState('not connected');
  const host = useRef<HTMLDivElement>(null);
  const { namespace, name } = pod.metadata;
  useEffect(() => {
    if (session === undefined || !host.current) return;
    const terminal = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 2000, screenReaderMode: true });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host.current);
    fit.fit();
    const query = new URLSearchParams({ container: session.container, stdin: 'true', stdout: 'true', tty: 'true' });
    for (const part of session.command.trim().split(/\s+/)) query.append('command', part);
    const socket = new WebSocket(
      socketUrl(`/api/v1/namespaces/${encodeURIComponent(namespace ?? '')}/pods/${encodeURIComponent(name ?? '')}/exec?${query.toString()}`),
      [V5, ...bearerProtocol()],
    );
    socket.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    const frame = (channel: number, data: Uint8Array) => {
      const bytes = new Uint8Array(data.length + 1);
      bytes[0] = channel;
      bytes.set(data, 1);
      return bytes;
    };
    const send = (channel: number, data: Uint8Array) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(frame(channel, data));
    };
    // Input typed before the socket is open waits for it; a resize then does not, as the one sent on open supersedes it.
    const pending: Uint8Array[] = [];
    const input = (data: string) => {
      if (socket.readyState === WebSocket.CONNECTING) pending.push(frame(CHANNEL.stdin, encoder.encode(data)));
      else send(CHANNEL.stdin, encoder.encode(data));
    };
    const resize = () => send(CHANNEL.resize, encoder.encode(JSON.stringify({ Width: terminal.cols, Height: terminal.rows })));
    setState('connecting');
    socket.onopen = () => {
      setState('connected');
      resize();
      for (const bytes of pending.splice(0)) socket.send(bytes);
      terminal.focus();
    };
    socket.onmessage = (message: MessageEvent<ArrayBuffer>) => {
      const bytes = new Uint8Array(message.data);
      if (bytes.length === 0) return;
      const payload = bytes.subarray(1);
      if (bytes[0] === CHANNEL.stdout || bytes[0] === CHANNEL.stderr) terminal.write(payload);
      else if (bytes[0] === CHANNEL.error && payload.length > 0) {
        const status = JSON.parse(new TextDecoder().decode(payload)) as { status?: string; message?: string };
        setState(status.status === 'Success' ? 'exited' : `ended: ${status.message ?? status.status ?? ''}`);
      }
    };
    socket.onclose = (e) => setState((s) => (s === 'connected' || s === 'connecting' ? `closed${e.reason ? `: ${e.reason}` : ''}` : s));
    const typed = terminal.onData(input);
    const sized = terminal.onResize(() => resize());
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(host.current);
    return () => {
      observer.disconnect();
      typed.dispose();
      sized.dispose();
      socket.close();
      terminal.dispose();
    };
  }, [session, namespace, name]);
  return (
    <div>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setSession((s) => ({ container, command, n: (s?.n ?? 0) + 1 }));
        }}
      >
        <label>
          Container
          <select value={container} onChange={(e) => setContainer(e.target.value)}>
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          Command
          <input value={command} onChange={(e) => setCommand(e.target.value)} />
        </label>
        <button type="submit">{session === undefined ? 'Connect' : 'Reconnect'}</button>
        <span className="muted" aria-live="polite" data-testid="terminal-state">
          {state}
        </span>
      </form>
      <div className="terminal" ref={host} data-testid="terminal" />
    </div>
  );
}
