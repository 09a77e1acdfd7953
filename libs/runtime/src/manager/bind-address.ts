import { isIP } from 'node:net';

/**
 * A bind address as controller-runtime's flags take it (`--health-probe-bind-address`,
 * `--metrics-bind-address`): `:8081` listens on every address (what a pod needs: the kubelet probes
 * the pod's IP), `127.0.0.1:8081` or `[::1]:8081` on one, port 0 on a free port; `0` turns the
 * server off (undefined). Anything else is refused with the text named.
 */
export function parseBindAddress(text: string): { host: string; port: number } | undefined {
  if (text === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2] ?? '';
  const port = Number(match?.[3]);
  if (!match || (host !== '' && host !== 'localhost' && !isIP(host)) || !(port >= 0 && port <= 65535)) {
    throw new Error(`${JSON.stringify(text)} is not a bind address (:port, host:port, [ipv6]:port, or 0 for none)`);
  }
  return { host: host === '' ? '0.0.0.0' : host, port };
}
