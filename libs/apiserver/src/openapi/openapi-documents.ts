import {
  encodeOpenApiV2Protobuf,
  groupVersionPath,
  openApiV2Document,
  openApiV2Etag,
  openApiV3Document,
  openApiV3Hash,
  openApiV3Index,
  type KindDefinition,
  type OpenApiDocument,
  type OpenApiDocumentOptions,
} from '@svc/api';
import type { ServedApis } from '../discovery/served-apis';

export interface RenderedDocument {
  /** The document as served (JSON text). */
  body: string;
  /** Its content hash, as the index's `?hash=` carries it. */
  hash: string;
}

/** `/openapi/v2` in its two encodings, each with the entity tag Kubernetes gives it. */
export interface RenderedV2 {
  json: Buffer;
  jsonEtag: string;
  protobuf: Buffer;
  protobufEtag: string;
  /** When the document last changed, for `Last-Modified`. */
  modified: Date;
}

interface CacheEntry extends RenderedDocument {
  kinds: readonly KindDefinition[];
}

function sameKinds(a: readonly KindDefinition[], b: readonly KindDefinition[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * The OpenAPI v3 documents of the served group versions, rendered once per change of the
 * scheme: a group version's document is rebuilt when the set of its kind definitions changes
 * (a CRD registered, updated or removed replaces definition objects), so its hash moves with it.
 */
export class OpenApiDocuments {
  private readonly cache = new Map<string, CacheEntry>();
  private v2Cache: { key: string; rendered: RenderedV2 } | undefined;

  constructor(
    private readonly apis: ServedApis,
    private readonly options: OpenApiDocumentOptions = {},
  ) {}

  /** The document of one group version; undefined when the group version is not served. */
  document(group: string, version: string): RenderedDocument | undefined {
    const key = groupVersionPath(group, version);
    const kinds = this.apis.kinds(group, version);
    const nonStored = this.apis.nonStored(group, version);
    if (!kinds.length && !nonStored.length) {
      this.cache.delete(key);
      return undefined;
    }
    const cached = this.cache.get(key);
    if (cached && sameKinds(cached.kinds, kinds)) return cached;
    const body = JSON.stringify(openApiV3Document(this.apis.scheme, group, version, { ...this.options, nonStored }));
    const entry: CacheEntry = { kinds, body, hash: openApiV3Hash(body) };
    this.cache.set(key, entry);
    return entry;
  }

  /** The `/openapi/v3` index, each entry carrying its document's current hash. */
  index(): string {
    const hashes: Record<string, string> = {};
    const served = new Set<string>();
    for (const g of this.apis.groups()) {
      for (const v of g.versions) {
        const doc = this.document(g.name, v.version);
        const key = groupVersionPath(g.name, v.version);
        served.add(key);
        if (doc) hashes[key] = doc.hash;
      }
    }
    for (const key of [...this.cache.keys()]) if (!served.has(key)) this.cache.delete(key);
    return JSON.stringify(openApiV3Index(this.apis.scheme, { groups: this.apis.groups(), include: (g, v) => served.has(groupVersionPath(g, v)), hashes }));
  }

  /** The Swagger 2.0 document over every served group version, rebuilt when any v3 document changes. */
  v2(): RenderedV2 {
    const docs: Array<{ key: string; doc: RenderedDocument }> = [];
    for (const g of this.apis.groups()) {
      for (const v of g.versions) {
        const doc = this.document(g.name, v.version);
        if (doc) docs.push({ key: groupVersionPath(g.name, v.version), doc });
      }
    }
    const key = docs.map((d) => `${d.key}=${d.doc.hash}`).join(',');
    if (this.v2Cache?.key === key) return this.v2Cache.rendered;
    const swagger = openApiV2Document(
      docs.map((d) => JSON.parse(d.doc.body) as OpenApiDocument),
      { title: this.options.title ?? 'svc', version: this.options.version ?? 'v1' },
    );
    const json = Buffer.from(JSON.stringify(swagger));
    const protobuf = Buffer.from(encodeOpenApiV2Protobuf(swagger));
    const rendered: RenderedV2 = { json, jsonEtag: openApiV2Etag(json), protobuf, protobufEtag: openApiV2Etag(protobuf), modified: new Date() };
    this.v2Cache = { key, rendered };
    return rendered;
  }
}
