import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAccept } from '../discovery/discovery-negotiation';
import { writeJson } from '../discovery/write-json';
import { failureStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { OpenApiDocuments } from './openapi-documents';

/** The protobuf media types `/openapi/v2` is asked for in, as kube-openapi lists them (the second is an older spelling). */
const V2_PROTOBUF_TYPES = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** The Content-Type either is answered with: `@` is no token character, and Go's mime parser (client-go's) refuses it. */
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** The encoding of `/openapi/v2` the Accept header picks first, or undefined (406). */
function negotiateV2(accept: string | undefined): { type: string; protobuf: boolean } | undefined {
  const ranges = parseAccept(accept && accept.trim() ? accept : '*/*');
  for (const r of ranges) {
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return { type: 'application/json', protobuf: false };
    if (V2_PROTOBUF_TYPES.includes(r.type)) return { type: V2_PROTOBUF_CONTENT_TYPE, protobuf: true };
  }
  return undefined;
}

/** A year from now, as HTTP dates it: Kubernetes' `Expires` on a document addressed by its hash. */
function aYearFromNow(): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString();
}

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

  constructor(@Inject(OpenApiDocuments) documents: OpenApiDocuments) {
    this.documents = documents;
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
    if (!doc) {
      // kube-openapi answers a group version it does not serve with a bare 404.
      res.statusCode = 404;
      res.setHeader('Cache-Control', 'no-cache, private');
      res.end();
      return;
    }
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
    const headers: Record<string, string> =
      asked === null ? { 'Cache-Control': 'no-cache, private' } : { 'Cache-Control': 'public, immutable', Expires: aYearFromNow() };
    writeJson(req, res, doc.body, { etag: `"${doc.hash}"`, headers });
  }

  private acceptable(req: IncomingMessage, res: ServerResponse): boolean {
    if (acceptsJson(req.headers.accept)) return true;
    writeStatus(res, failureStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json (got ${req.headers.accept ?? ''})`));
    return false;
  }
}

/**
 * `/openapi/v2`: the Swagger 2.0 document of every served group version, as JSON or as the
 * protobuf client-go asks for (kubectl's validation and its query-parameter check fall back to it
 * for a group version missing from `/openapi/v3`). Anything else is 406 with no body, as in Kubernetes.
 */
@Controller('openapi/v2')
export class OpenApiV2Controller {
  constructor(@Inject(OpenApiDocuments) private readonly documents: OpenApiDocuments) {}

  @Get()
  document(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const format = negotiateV2(req.headers.accept);
    res.setHeader('Vary', 'Accept');
    if (!format) {
      res.statusCode = 406;
      res.end();
      return;
    }
    const v2 = this.documents.v2();
    res.setHeader('Last-Modified', v2.modified.toUTCString());
    res.setHeader('Cache-Control', 'no-cache, private');
    if (format.protobuf) writeJson(req, res, v2.protobuf, { contentType: format.type, etag: `"${v2.protobufEtag}"` });
    else writeJson(req, res, v2.json, { etag: `"${v2.jsonEtag}"` });
  }
}
