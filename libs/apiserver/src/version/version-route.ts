import type { ServerVersionInfo } from '../config';
import type { MuxRoute } from '../serving/mux';

/** `/version`: the version the server reports (kubectl version, client-go's discovery). */
export function versionRoute(version: ServerVersionInfo): MuxRoute {
  const body = JSON.stringify(version, null, 2);
  return { path: '/version', methods: ['GET'], handler: (_req, res) => res.end(200, body, { 'Content-Type': 'application/json' }) };
}
