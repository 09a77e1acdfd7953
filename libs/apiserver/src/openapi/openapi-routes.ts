import type { IncomingMessage } from 'node:http';
import { parseAccept } from '../discovery/discovery-negotiation';
import { writeJson } from '../discovery/write-json';
import { requestUrl } from '../request/request-context';
import { decodeParam, type MuxRoute } from '../serving/mux';
import type { ResponseWriter } from '../serving/response-writer';
import { failureStatus } from '../status/status';
import type { OpenApiDocuments } from './openapi-documents';

/** The protobuf media types `/openapi/v2` is asked for in, as kube-openapi lists them (the second is an older spelling). */
const V2_PROTOBUF_TYPES = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** The Content-Type either is answered with: `@` is no token character, and Go's mime parser (client-go's) refuses it. */
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const NO_CACHE = { 'Cache-Control': 'no-cache, private' };

/**
 * `/openapi/v3` (the index), `/openapi/v3/api/v1` and `/openapi/v3/apis/<group>/<version>`, JSON
 * only: a client asking for the protobuf encoding alone gets 406 and asks again for JSON. And
 * `/openapi/v2`, the Swagger 2.0 document of every served group version, as JSON or as the protobuf
 * client-go asks for (kubectl's validation and its query-parameter check fall back to it for a
 * group version missing from `/openapi/v3`); anything else is 406 with no body, as in Kubernetes.
 */
export function openApiRoutes(documents: OpenApiDocuments): MuxRoute[] {
  const get = ['GET'];
  return [
    { path: '/openapi/v3', methods: get, handler: (req, res) => index(documents, req, res) },
    { path: '/openapi/v3/api/{version}', methods: get, handler: (req, res, { version }) => v3(documents, req, res, '', decodeParam(version)) },
    {
      path: '/openapi/v3/apis/{group}/{version}',
      methods: get,
      handler: (req, res, { group, version }) => v3(documents, req, res, decodeParam(group), decodeParam(version)),
    },
    { path: '/openapi/v2', methods: get, handler: (req, res) => v2(documents, req, res) },
  ];
}

function index(documents: OpenApiDocuments, req: IncomingMessage, res: ResponseWriter): void {
  if (!acceptable(req, res)) return;
  writeJson(req, res, documents.index(), { headers: NO_CACHE });
}

function v3(documents: OpenApiDocuments, req: IncomingMessage, res: ResponseWriter, group: string, version: string): void {
  if (!acceptable(req, res)) return;
  const doc = documents.document(group, version);
  // kube-openapi answers a group version it does not serve with a bare 404.
  if (!doc) return res.end(404, undefined, NO_CACHE);
  const url = requestUrl(req);
  const asked = url.searchParams.get('hash');
  if (asked !== null && asked !== doc.hash) {
    // A stale link (the document changed since the index was read): send the client to the current one.
    const query = new URLSearchParams(url.searchParams);
    query.set('hash', doc.hash);
    return res.end(301, undefined, { Location: `${url.pathname}?${query.toString()}`, ...NO_CACHE });
  }
  const headers: Record<string, string> = asked === null ? NO_CACHE : { 'Cache-Control': 'public, immutable', Expires: aYearFromNow() };
  writeJson(req, res, doc.body, { etag: `"${doc.hash}"`, headers });
}

function v2(documents: OpenApiDocuments, req: IncomingMessage, res: ResponseWriter): void {
  const format = negotiateV2(req.headers.accept);
  if (!format) return res.end(406, undefined, { Vary: 'Accept' });
  const doc = documents.v2();
  const headers = { Vary: 'Accept', 'Last-Modified': doc.modified.toUTCString(), ...NO_CACHE };
  if (format.protobuf) writeJson(req, res, doc.protobuf, { contentType: format.type, etag: `"${doc.protobufEtag}"`, headers });
  else writeJson(req, res, doc.json, { etag: `"${doc.jsonEtag}"`, headers });
}

/** The encoding of `/openapi/v2` the Accept header picks first, or undefined (406). */
function negotiateV2(accept: string | undefined): { type: string; protobuf: boolean } | undefined {
  const ranges = parseAccept(accept && accept.trim() ? accept : '*/*');
  for (const r of ranges) {
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return { type: 'application/json', protobuf: false };
    if (V2_PROTOBUF_TYPES.includes(r.type)) return { type: V2_PROTOBUF_CONTENT_TYPE, protobuf: true };
  }
  return undefined;
}

function acceptable(req: IncomingMessage, res: ResponseWriter): boolean {
  const accept = req.headers.accept;
  if (!accept || !accept.trim() || parseAccept(accept).some((r) => r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*'))
    return true;
  res.status(failureStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json (got ${accept})`));
  return false;
}

/** A year from now, as HTTP dates it: Kubernetes' `Expires` on a document addressed by its hash. */
function aYearFromNow(): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString();
}
