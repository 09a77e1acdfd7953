import { EndpointsSchema, type Endpoints } from '../../kinds/core/endpoints';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

const MAX_SHOWN = 3;

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** Kubernetes' formatEndpoints: up to three `ip:port` pairs, then `+ N more...`. */
export function formatEndpoints(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  let count = 0;
  let more = false;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    const pairs = ports.length ? ports.flatMap((p) => addresses.map((a) => hostPort(a.ip, p.port))) : addresses.map((a) => a.ip);
    count += pairs.length;
    for (const pair of pairs) {
      if (list.length === MAX_SHOWN) {
        more = true;
        break;
      }
      list.push(pair);
    }
  }
  if (more) return `${list.join(',')} + ${count - MAX_SHOWN} more...`;
  return list.length ? list.join(',') : '<none>';
}

export const endpointsDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  resource: 'endpoints',
  singular: 'endpoints',
  listKind: 'EndpointsList',
  namespaced: true,
  shortNames: ['ep'],
  schema: EndpointsSchema,
  allowCreateOnUpdate: true,
  columns: [nameColumn(), column('Endpoints', 'string', (o) => formatEndpoints(as<Endpoints>(o)), { description: 'Endpoints of the service.' }), ageColumn()],
});
