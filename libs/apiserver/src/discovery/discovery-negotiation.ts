import type { AggregatedDiscoveryVersion } from './discovery-documents';

/** What a discovery request is answered with: the legacy `meta/v1` documents or the aggregated list. */
export type DiscoveryFormat = { type: 'legacy' } | { type: 'aggregated'; version: AggregatedDiscoveryVersion };

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

/** The media ranges of an `Accept` header in order of preference (higher q first, then header order). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...rawParams] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0)
        params[p.slice(0, eq).trim().toLowerCase()] = p
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    delete params.q;
    ranges.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 });
  }
  // Array.prototype.sort is stable, so equal q keeps the client's order.
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q);
}

export const AGGREGATED_DISCOVERY_GROUP = 'apidiscovery.k8s.io';
export const AGGREGATED_DISCOVERY_KIND = 'APIGroupDiscoveryList';

/** The Content-Type of an aggregated answer, parameters in the order client-go writes them. */
export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=${AGGREGATED_DISCOVERY_GROUP};v=${version};as=${AGGREGATED_DISCOVERY_KIND}`;
}

/**
 * Picks the answer for an `Accept` header. The aggregated form is offered only where Kubernetes
 * serves it (`/api`, `/apis`); JSON otherwise. Undefined means nothing acceptable (406).
 */
export function negotiateDiscovery(accept: string | undefined, aggregatedAllowed: boolean): DiscoveryFormat | undefined {
  if (!accept || !accept.trim()) return { type: 'legacy' };
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    if (r.type === '*/*' || r.type === 'application/*') return { type: 'legacy' };
    if (r.type !== 'application/json') continue;
    if (r.params.as === undefined && r.params.g === undefined && r.params.v === undefined) return { type: 'legacy' };
    if (
      aggregatedAllowed &&
      r.params.g === AGGREGATED_DISCOVERY_GROUP &&
      r.params.as === AGGREGATED_DISCOVERY_KIND &&
      (r.params.v === 'v2' || r.params.v === 'v2beta1') &&
      // The nopeer profile asks for this server's own view, which is the only view a single server has.
      (r.params.profile === undefined || r.params.profile === 'nopeer')
    ) {
      return { type: 'aggregated', version: r.params.v };
    }
  }
  return undefined;
}
