import { newNotAcceptable } from '@svc/machinery';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE, parseAccept, PROTOBUF_MEDIA_TYPE, type MediaRange } from '../../decoding/media-types';

/**
 * `protobuf` is the product's envelope with the object's JSON inside; `kubernetes-protobuf` is
 * Kubernetes' own: the object's generated protobuf message in the envelope, as client-go reads it.
 */
export type OutputEncoding = 'json' | 'yaml' | 'protobuf' | 'kubernetes-protobuf';

/** The meta kinds a client may ask to see objects as, through `as=` in Accept. */
export type OutputView = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface OutputFormat {
  encoding: OutputEncoding;
  /** Content-Type of a (non-streaming) response. */
  contentType: string;
  /** Content-Type of a watch stream. */
  streamContentType: string;
  /** Set when objects are shown as a meta kind; `apiVersion` is the one the client asked for. */
  view?: { as: OutputView; apiVersion: string };
  pretty: boolean;
}

export interface NegotiationTarget {
  /** The request's verb: views are only served on reads. */
  verb: string;
  /** Whether the resource is served as protobuf (built-in kinds; custom resources are JSON only). */
  protobuf: boolean;
}

/**
 * The meta groups a view may be asked in: the product's own, and Kubernetes' name for it, which kubectl
 * and client libraries send. The answer carries the group the client asked for, so it decodes it.
 */
const META_GROUPS = new Set(['meta.svc.io', 'meta.k8s.io']);
const META_VERSIONS = new Set(['v1', 'v1beta1']);

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';

/**
 * Chooses the response format from the Accept header, the first supported entry winning (by `q`, then
 * order). No header, or an empty one, means JSON. Throws 406 NotAcceptable when no entry is supported.
 */
export function negotiateOutput(accept: string | undefined, target: NegotiationTarget, pretty: boolean): OutputFormat {
  if (accept === undefined || accept.trim() === '') return jsonFormat(pretty);
  for (const range of parseAccept(accept)) {
    const chosen = formatFor(range, target, pretty);
    if (chosen !== undefined) return chosen;
  }
  throw newNotAcceptable(target.protobuf ? [JSON_TYPE, YAML_TYPE, KUBERNETES_PROTOBUF_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE] : [JSON_TYPE, YAML_TYPE]);
}

/** The JSON format, for answers that cannot be negotiated (errors before negotiation). */
export function jsonFormat(pretty = false): OutputFormat {
  return { encoding: 'json', contentType: JSON_TYPE, streamContentType: JSON_TYPE, pretty };
}

function formatFor(range: MediaRange, target: NegotiationTarget, pretty: boolean): OutputFormat | undefined {
  const full = `${range.type}/${range.subtype}`;
  const as = range.params.as;
  if (as !== undefined) {
    const protobufView = full === KUBERNETES_PROTOBUF_MEDIA_TYPE;
    if (!protobufView && full !== JSON_TYPE && full !== 'application/*' && full !== '*/*') return undefined;
    const view = viewFor(as, range.params.g ?? '', range.params.v ?? '', target.verb);
    if (view === undefined) return undefined;
    if (protobufView) {
      // Metadata views have meta/v1 messages, whatever the resource (custom ones too), as client-go's
      // metadata client reads them; a Table has none.
      if (view.as === 'Table') return undefined;
      return {
        encoding: 'kubernetes-protobuf',
        contentType: `${full};as=${view.as};v=${range.params.v};g=${range.params.g}`,
        streamContentType: `${full};stream=watch`,
        view,
        pretty: false,
      };
    }
    return {
      encoding: 'json',
      contentType: `${JSON_TYPE};as=${view.as};v=${range.params.v};g=${range.params.g}`,
      streamContentType: JSON_TYPE,
      view,
      pretty,
    };
  }
  if (full === JSON_TYPE || full === 'application/*' || full === '*/*') return jsonFormat(pretty);
  if (full === YAML_TYPE) {
    // YAML has no stream framing: watches answer in JSON, as Kubernetes does.
    return { encoding: target.verb === 'watch' ? 'json' : 'yaml', contentType: YAML_TYPE, streamContentType: JSON_TYPE, pretty };
  }
  if (full === KUBERNETES_PROTOBUF_MEDIA_TYPE && target.protobuf) {
    return { encoding: 'kubernetes-protobuf', contentType: full, streamContentType: `${full};stream=watch`, pretty: false };
  }
  if (full === PROTOBUF_MEDIA_TYPE && target.protobuf) {
    return { encoding: 'protobuf', contentType: full, streamContentType: `${full};stream=watch`, pretty: false };
  }
  return undefined;
}

function viewFor(as: string, group: string, version: string, verb: string): OutputFormat['view'] {
  if (!META_GROUPS.has(group) || !META_VERSIONS.has(version)) return undefined;
  const apiVersion = `${group}/${version}`;
  switch (as) {
    case 'Table':
      return verb === 'get' || verb === 'list' || verb === 'watch' ? { as, apiVersion } : undefined;
    case 'PartialObjectMetadata':
      return verb === 'get' || verb === 'watch' ? { as, apiVersion } : undefined;
    case 'PartialObjectMetadataList':
      return verb === 'list' ? { as, apiVersion } : undefined;
    default:
      return undefined;
  }
}

/** `?pretty` (anything but `0`/`false`) or a command-line user agent, as Kubernetes decides it. */
export function wantsPretty(prettyParam: string | null, userAgent: string | undefined): boolean {
  if (prettyParam !== null) return prettyParam !== '0' && prettyParam.toLowerCase() !== 'false';
  return userAgent !== undefined && (userAgent.startsWith('curl') || userAgent.startsWith('Wget'));
}
