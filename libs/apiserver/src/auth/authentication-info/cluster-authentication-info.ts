import { X509Certificate } from 'node:crypto';
import { AUTHENTICATION_INFO_KEYS } from '@svc/machinery';

/** The front proxy's settings as published: its CA bundle and the `--requestheader-*` lists. */
export interface RequestHeaderAuthenticationInfo {
  caPem: string;
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  groupHeaders: readonly string[];
  extraHeadersPrefix: readonly string[];
}

/** What this server accepts client certificates from, and its front proxy's settings. */
export interface ClusterAuthenticationInfo {
  /** Every CA a client certificate may chain to (`--client-ca-file` and the server's own client CA). */
  clientCaPem?: string;
  requestHeader?: RequestHeaderAuthenticationInfo;
}

// A certificate that expired this little ago is still kept, as a clock a little behind may still accept it.
const EXPIRY_SLACK_MS = 5 * 60_000;

/** The ConfigMap's data for `info`: a key without content is left out. */
export function authenticationInfoData(info: ClusterAuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = {};
  if (info.clientCaPem) data[AUTHENTICATION_INFO_KEYS.clientCa] = info.clientCaPem;
  const header = info.requestHeader;
  if (header?.caPem) {
    data[AUTHENTICATION_INFO_KEYS.requestHeaderClientCa] = header.caPem;
    data[AUTHENTICATION_INFO_KEYS.requestHeaderAllowedNames] = JSON.stringify(header.allowedNames);
    data[AUTHENTICATION_INFO_KEYS.requestHeaderUsernameHeaders] = JSON.stringify(header.usernameHeaders);
    data[AUTHENTICATION_INFO_KEYS.requestHeaderGroupHeaders] = JSON.stringify(header.groupHeaders);
    data[AUTHENTICATION_INFO_KEYS.requestHeaderExtraHeadersPrefix] = JSON.stringify(header.extraHeadersPrefix);
  }
  return data;
}

/**
 * What a ConfigMap's data says. Content that does not parse (an edit by hand, a truncated bundle) is
 * left out rather than refused, so that the server's own settings can be written over it.
 */
export function parseAuthenticationInfoData(data: Readonly<Record<string, unknown>> | undefined): ClusterAuthenticationInfo {
  const text = (key: string): string => {
    const value = data?.[key];
    return typeof value === 'string' ? value : '';
  };
  const info: ClusterAuthenticationInfo = {};
  const clientCa = text(AUTHENTICATION_INFO_KEYS.clientCa);
  if (clientCa) info.clientCaPem = clientCa;
  const headerCa = text(AUTHENTICATION_INFO_KEYS.requestHeaderClientCa);
  if (headerCa) {
    info.requestHeader = {
      caPem: headerCa,
      allowedNames: stringList(text(AUTHENTICATION_INFO_KEYS.requestHeaderAllowedNames)),
      usernameHeaders: stringList(text(AUTHENTICATION_INFO_KEYS.requestHeaderUsernameHeaders)),
      groupHeaders: stringList(text(AUTHENTICATION_INFO_KEYS.requestHeaderGroupHeaders)),
      extraHeadersPrefix: stringList(text(AUTHENTICATION_INFO_KEYS.requestHeaderExtraHeadersPrefix)),
    };
  }
  return info;
}

/**
 * What is published when `existing` is in the ConfigMap and this server requires `required`, as
 * Kubernetes combines them: every certificate of both (each once, expired ones dropped) and every
 * header name of both, those already published first. API servers sharing a store so each add
 * theirs instead of writing over each other's; what this server needs is always there.
 */
export function combineAuthenticationInfo(
  existing: ClusterAuthenticationInfo,
  required: ClusterAuthenticationInfo,
  now: number = Date.now(),
): ClusterAuthenticationInfo {
  const combined: ClusterAuthenticationInfo = {};
  const clientCa = combineBundles([existing.clientCaPem, required.clientCaPem], now);
  if (clientCa) combined.clientCaPem = clientCa;
  const a = existing.requestHeader;
  const b = required.requestHeader;
  const headerCa = combineBundles([a?.caPem, b?.caPem], now);
  if (headerCa) {
    combined.requestHeader = {
      caPem: headerCa,
      allowedNames: unique(a?.allowedNames, b?.allowedNames),
      usernameHeaders: unique(a?.usernameHeaders, b?.usernameHeaders),
      groupHeaders: unique(a?.groupHeaders, b?.groupHeaders),
      extraHeadersPrefix: unique(a?.extraHeadersPrefix, b?.extraHeadersPrefix),
    };
  }
  return combined;
}

/** The certificates of the bundles in order, each once, as PEM; undefined when none is left. */
function combineBundles(bundles: ReadonlyArray<string | undefined>, now: number): string | undefined {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const bundle of bundles) {
    for (const cert of certificatesOf(bundle ?? '')) {
      const der = cert.raw.toString('base64');
      if (seen.has(der) || Date.parse(cert.validTo) <= now - EXPIRY_SLACK_MS) continue;
      seen.add(der);
      kept.push(cert.toString().trim());
    }
  }
  return kept.length > 0 ? `${kept.join('\n')}\n` : undefined;
}

function certificatesOf(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certificates: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      // Not a certificate: dropped from what is published.
    }
  }
  return certificates;
}

function stringList(json: string): string[] {
  if (json === '') return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function unique(...lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  return [...new Set(lists.flatMap((list) => list ?? []))];
}
