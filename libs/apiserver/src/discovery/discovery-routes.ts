import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { ApiServerServingConfig } from '../config';
import { decodeParam, type MuxRoute } from '../serving/mux';
import type { ResponseWriter } from '../serving/response-writer';
import { failureStatus, notFoundStatus } from '../status/status';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery-documents';
import { aggregatedContentType, negotiateDiscovery, type DiscoveryFormat } from './discovery-negotiation';
import type { ServedApis } from './served-apis';
import { mergeGroupDiscoveryList, mergeGroupList, NO_AGGREGATED_APIS, type AggregatedApis } from './merged-discovery';
import { writeJson } from './write-json';

/**
 * `/api`, `/api/<v>`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`: what the server serves, computed per
 * request from the scheme, with what aggregated servers serve (a remote group version's own discovery
 * is proxied to it).
 */
export function discoveryRoutes(apis: ServedApis, config: ApiServerServingConfig, aggregated: AggregatedApis = NO_AGGREGATED_APIS): MuxRoute[] {
  const get = ['GET'];
  return [
    { path: '/api', methods: get, handler: (req, res) => root(apis, config, req, res, 'api', aggregated) },
    { path: '/apis', methods: get, handler: (req, res) => root(apis, config, req, res, 'apis', aggregated) },
    { path: '/api/{version}', methods: get, handler: (req, res, { version }) => resources(apis, req, res, '', decodeParam(version)) },
    { path: '/apis/{group}', methods: get, handler: (req, res, { group }) => groupDocument(apis, req, res, decodeParam(group), aggregated) },
    {
      path: '/apis/{group}/{version}',
      methods: get,
      handler: (req, res, params) => {
        const remote = aggregated.versionHandler(decodeParam(params.group), decodeParam(params.version));
        if (remote) return remote(req, res, params);
        return resources(apis, req, res, decodeParam(params.group), decodeParam(params.version));
      },
    },
  ];
}

function root(
  apis: ServedApis,
  config: ApiServerServingConfig,
  req: IncomingMessage,
  res: ResponseWriter,
  root: 'api' | 'apis',
  aggregated: AggregatedApis,
): void {
  const format = negotiate(req, res, true);
  if (!format) return;
  if (format.type === 'aggregated') {
    const local = aggregatedDiscovery(apis, root, format.version);
    const doc = root === 'api' ? local : mergeGroupDiscoveryList(local, aggregated.groups());
    writeJson(req, res, JSON.stringify(doc), { contentType: aggregatedContentType(format.version) });
    return;
  }
  const doc = root === 'api' ? apiVersions(apis, serverAddress(config, req)) : mergeGroupList(apiGroupList(apis), aggregated.groups());
  writeJson(req, res, JSON.stringify(doc));
}

function groupDocument(apis: ServedApis, req: IncomingMessage, res: ResponseWriter, group: string, aggregated: AggregatedApis): void {
  if (!negotiate(req, res, false)) return;
  // kube-aggregator's group handler: a group with a remote version lists its APIServices' versions.
  const doc = aggregated.groupDocument(group) ?? apiGroup(apis, group);
  if (!doc) return res.status(notFoundStatus());
  writeJson(req, res, JSON.stringify(doc));
}

function resources(apis: ServedApis, req: IncomingMessage, res: ResponseWriter, group: string, version: string): void {
  if (!negotiate(req, res, false)) return;
  const doc = apiResourceList(apis, group, version);
  if (!doc) return res.status(notFoundStatus());
  writeJson(req, res, JSON.stringify(doc));
}

function negotiate(req: IncomingMessage, res: ResponseWriter, aggregatedAllowed: boolean): DiscoveryFormat | undefined {
  const format = negotiateDiscovery(req.headers.accept, aggregatedAllowed);
  if (!format) {
    res.status(failureStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json (got ${req.headers.accept ?? ''})`));
  }
  return format;
}

/** `host:port` clients should use: the advertised address, else the address this request came in on. */
function serverAddress(config: ApiServerServingConfig, req: IncomingMessage): string {
  const host = config.advertiseAddress || req.socket.localAddress?.replace(/^::ffff:/, '') || '127.0.0.1';
  const port = req.socket.localPort ?? config.securePort;
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
