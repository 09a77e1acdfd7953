import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiServerServingConfig } from '../config';
import { SERVED_APIS } from '../discovery/discovery.tokens';
import { parseAccept } from '../discovery/discovery-negotiation';
import type { ServedApis } from '../discovery/served-apis';
import { writeJson } from '../discovery/write-json';
import { SERVING_CONFIG } from '../serving-core.module';
import { failureStatus, notFoundStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { OpenApiDocuments } from './openapi-documents';

/** A year, as Kubernetes caches a document addressed by its hash. */
const IMMUTABLE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

function acceptsJson(accept: string | undefined): boolean {
  if (!accept || !accept.trim()) return true;
  return parseAccept(accept).some((r) => r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*');
}

/**
 * `/openapi/v3` (the index) and `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`. Only JSON
 * is served: a client asking for the protobuf encoding alone gets 406 and asks again for JSON.
 */
@Controller('openapi/v3')
export class OpenApiController {
  private readonly documents: OpenApiDocuments;

  constructor(@Inject(SERVED_APIS) apis: ServedApis, @Inject(SERVING_CONFIG) config: ApiServerServingConfig) {
    this.documents = new OpenApiDocuments(apis, { title: 'svc', version: config.version.gitVersion });
  }

  @Get()
  index(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    if (!this.acceptable(req, res)) return;
    writeJson(req, res, this.documents.index(), { headers: { 'Cache-Control': 'no-cache, private' } });
  }

  @Get('api/:version')
  legacy(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Param('version') version: string): void {
    this.serve(req, res, '', version);
  }

  @Get('apis/:group/:version')
  named(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Param('group') group: string, @Param('version') version: string): void {
    this.serve(req, res, group, version);
  }

  private serve(req: IncomingMessage, res: ServerResponse, group: string, version: string): void {
    if (!this.acceptable(req, res)) return;
    const doc = this.documents.document(group, version);
    if (!doc) return writeStatus(res, notFoundStatus());
    const url = new URL(req.url ?? '/', 'https://localhost');
    const asked = url.searchParams.get('hash');
    if (asked !== null && asked !== doc.hash) {
      // A stale link (the document changed since the index was read): send the client to the current one.
      url.searchParams.set('hash', doc.hash);
      res.statusCode = 301;
      res.setHeader('Location', `${url.pathname}${url.search}`);
      res.setHeader('Cache-Control', 'no-cache, private');
      res.end();
      return;
    }
    const cacheControl = asked === null ? 'no-cache, private' : `public, immutable, max-age=${IMMUTABLE_MAX_AGE_SECONDS}`;
    writeJson(req, res, doc.body, { etag: `"${doc.hash}"`, headers: { 'Cache-Control': cacheControl } });
  }

  private acceptable(req: IncomingMessage, res: ServerResponse): boolean {
    if (acceptsJson(req.headers.accept)) return true;
    writeStatus(res, failureStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json (got ${req.headers.accept ?? ''})`));
    return false;
  }
}
