import { useEffect, useState } from 'react';
import type { DiscoveredResource } from '../api/discovery';

/** Where the console is, read from the URL's fragment (the server serves one page). */
export type Route =
  | { view: 'overview' }
  | { view: 'reconciles'; controller?: string }
  | { view: 'list'; group: string; version: string; resource: string; label?: string; field?: string }
  | { view: 'object'; group: string; version: string; resource: string; namespace?: string; name: string; tab: string };

const CORE = 'core';

export function parseRoute(hash: string): Route {
  const [pathPart, queryPart = ''] = hash.replace(/^#/, '').split('?');
  const parts = pathPart
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  const query = new URLSearchParams(queryPart);
  const group = (g: string) => (g === CORE ? '' : g);
  if (parts[0] === 'reconciles') return { view: 'reconciles', controller: query.get('controller') ?? undefined };
  if (parts[0] === 'list' && parts.length >= 4) {
    return {
      view: 'list',
      group: group(parts[1]),
      version: parts[2],
      resource: parts[3],
      label: query.get('l') ?? undefined,
      field: query.get('f') ?? undefined,
    };
  }
  if (parts[0] === 'object' && parts.length >= 6) {
    return {
      view: 'object',
      group: group(parts[1]),
      version: parts[2],
      resource: parts[3],
      namespace: parts[4] === '_' ? undefined : parts[4],
      name: parts[5],
      tab: parts[6] ?? 'summary',
    };
  }
  return { view: 'overview' };
}

export function listHref(r: Pick<DiscoveredResource, 'group' | 'version' | 'resource'>, selectors: { label?: string; field?: string } = {}): string {
  const query = new URLSearchParams();
  if (selectors.label) query.set('l', selectors.label);
  if (selectors.field) query.set('f', selectors.field);
  const q = query.toString();
  return `#/list/${encodeURIComponent(r.group || CORE)}/${r.version}/${r.resource}${q ? `?${q}` : ''}`;
}

export function objectHref(r: Pick<DiscoveredResource, 'group' | 'version' | 'resource'>, namespace: string | undefined, name: string, tab?: string): string {
  return `#/object/${encodeURIComponent(r.group || CORE)}/${r.version}/${r.resource}/${namespace ? encodeURIComponent(namespace) : '_'}/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
