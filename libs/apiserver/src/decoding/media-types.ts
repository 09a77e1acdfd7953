/** The product's protobuf envelope type, whose `raw` carries the object's JSON. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.svc.protobuf';

/**
 * Kubernetes' protobuf: the envelope with the object's generated protobuf message in `raw`, as
 * kubectl and client-go send it. Built-in kinds are read and answered in it (libs/machinery's codec,
 * Kubernetes' messages field for field); custom resources are JSON only, as in Kubernetes.
 */
export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** Request body types read as an envelope. */
export const PROTOBUF_MEDIA_TYPES: readonly string[] = [PROTOBUF_MEDIA_TYPE, KUBERNETES_PROTOBUF_MEDIA_TYPE];

/** `type/subtype` of a Content-Type or Accept entry, lower case, without parameters. */
export function mediaTypeOf(value: string): string {
  const semicolon = value.indexOf(';');
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

/** One entry of an Accept header. */
export interface MediaRange {
  type: string;
  subtype: string;
  /** Parameters other than `q`, names lower case. */
  params: Record<string, string>;
  q: number;
}

/**
 * Parses an Accept header into its entries, most preferred first (by `q`, then by order). Quoted
 * parameter values and spaces are tolerated; entries that are not `type/subtype` are dropped.
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: Array<MediaRange & { order: number }> = [];
  splitOutsideQuotes(header, ',').forEach((entry, order) => {
    const [head, ...rawParams] = splitOutsideQuotes(entry, ';');
    // An entry with no media range before its parameters (`;q=1`) names nothing: skipped.
    if (head === undefined) return;
    const slash = head.indexOf('/');
    if (slash <= 0) return;
    const type = head.slice(0, slash).trim().toLowerCase();
    const subtype = head
      .slice(slash + 1)
      .trim()
      .toLowerCase();
    if (type === '' || subtype === '') return;
    const params: Record<string, string> = {};
    let q = 1;
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      const name = raw.slice(0, eq).trim().toLowerCase();
      let value = raw.slice(eq + 1).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      if (name === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      } else {
        params[name] = value;
      }
    }
    ranges.push({ type, subtype, params, q, order });
  });
  return ranges
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map(({ type, subtype, params, q }) => ({ type, subtype, params, q }));
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"') quoted = !quoted;
    else if (c === separator && !quoted) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}
