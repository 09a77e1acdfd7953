import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { ApiServerServingConfig } from '../config';
import { SERVING_CONFIG } from '../serving-core.module';
import { failureStatus, notFoundStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery-documents';
import { aggregatedContentType, negotiateDiscovery, type DiscoveryFormat } from './discovery-negotiation';
import { SERVED_APIS } from './discovery.tokens';
import type { ServedApis } from './served-apis';
import { writeJson } from './write-json';

function notAcceptable(res: ServerResponse, accept: string | undefined): void {
  writeStatus(res, failureStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json (got ${accept ?? ''})`));
}

/** `/api`, `/api/<v>`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`: what the server serves, computed per request from the scheme. */
@Controller()
export class DiscoveryController {
  constructor(
    @Inject(SERVED_APIS) private readonly apis: ServedApis,
    @Inject(SERVING_CONFIG) private readonly config: ApiServerServingConfig,
  ) {}

  @Get('api')
  legacyRoot(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    this.root(req, res, 'api');
  }

  @Get('apis')
  namedRoot(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    this.root(req, res, 'apis');
  }

  @Get('api/:version')
  legacyVersion(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Param('version') version: string): void {
    this.resources(req, res, '', version);
  }

  @Get('apis/:group')
  group(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Param('group') group: string): void {
    if (!this.negotiate(req, res, false)) return;
    const doc = apiGroup(this.apis, group);
    if (!doc) return writeStatus(res, notFoundStatus());
    writeJson(req, res, JSON.stringify(doc));
  }

  @Get('apis/:group/:version')
  namedVersion(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Param('group') group: string, @Param('version') version: string): void {
    this.resources(req, res, group, version);
  }

  private root(req: IncomingMessage, res: ServerResponse, root: 'api' | 'apis'): void {
    const format = this.negotiate(req, res, true);
    if (!format) return;
    if (format.type === 'aggregated') {
      writeJson(req, res, JSON.stringify(aggregatedDiscovery(this.apis, root, format.version)), { contentType: aggregatedContentType(format.version) });
      return;
    }
    const doc = root === 'api' ? apiVersions(this.apis, this.serverAddress(req)) : apiGroupList(this.apis);
    writeJson(req, res, JSON.stringify(doc));
  }

  private resources(req: IncomingMessage, res: ServerResponse, group: string, version: string): void {
    if (!this.negotiate(req, res, false)) return;
    const doc = apiResourceList(this.apis, group, version);
    if (!doc) return writeStatus(res, notFoundStatus());
    writeJson(req, res, JSON.stringify(doc));
  }

  private negotiate(req: IncomingMessage, res: ServerResponse, aggregatedAllowed: boolean): DiscoveryFormat | undefined {
    const format = negotiateDiscovery(req.headers.accept, aggregatedAllowed);
    if (!format) notAcceptable(res, req.headers.accept);
    return format;
  }

  /** `host:port` clients should use: the advertised address, else the address this request came in on. */
  private serverAddress(req: IncomingMessage): string {
    const host = this.config.advertiseAddress || req.socket.localAddress?.replace(/^::ffff:/, '') || '127.0.0.1';
    const port = req.socket.localPort ?? this.config.securePort;
    return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  }
}
