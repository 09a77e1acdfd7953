/**
 * Go's url.ParseRequestURI, which Kubernetes' url(), isURL() and format.uri() use: an absolute URI
 * or an absolute path, with Go's wording of each refusal (`parse "x": invalid URI for request`).
 */

export interface RequestUri {
  scheme: string;
  /** The part after `scheme:` when it does not start with `/` (`mailto:x`). */
  opaque: string;
  userinfo?: string;
  /** Host and port as written (`[::1]:80`). */
  host: string;
  /** The path, unescaped. */
  path: string;
  /** The path as written (escaped). */
  rawPath: string;
  rawQuery: string;
  forceQuery: boolean;
}

export type RequestUriResult = { ok: true; uri: RequestUri } | { ok: false; error: string };

/** Go's %q of an ASCII-printable-or-not string: JSON's quoting, with Go's escapes for control bytes. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function fail(raw: string, reason: string): RequestUriResult {
  return { ok: false, error: `parse ${goQuote(raw)}: ${reason}` };
}

const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);

/** Go's unescape: the first bad `%` escape, or a host character Go refuses, is the error. */
function checkEscapes(text: string, host: boolean): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '%') {
      if (i + 2 >= text.length || !isHex(text[i + 1]) || !isHex(text[i + 2])) return `invalid URL escape ${goQuote(text.slice(i, i + 3))}`;
      i += 2;
    } else if (host && c.charCodeAt(0) < 0x80 && !shouldNotEscapeInHost(c)) {
      return `invalid character ${goQuote(c)} in host name`;
    }
  }
  return undefined;
}

/** Characters Go's shouldEscape lets stand in a host (RFC 3986's unreserved and sub-delims, `:[]`, `<>"`). */
function shouldNotEscapeInHost(c: string): boolean {
  return /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c);
}

function unescape(text: string): string {
  try {
    return decodeURIComponent(text.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return text;
  }
}

/** Go's validOptionalPort. */
function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^\d*$/.test(port.slice(1));
}

function parseHost(host: string): string | undefined {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) return "missing ']' in host";
    const port = host.slice(close + 1);
    if (!validOptionalPort(port)) return `invalid port ${goQuote(port)} after host`;
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) {
      const bad = checkEscapes(host.slice(0, zone), true) ?? checkEscapes(host.slice(zone, close), false);
      return bad;
    }
    return checkEscapes(host.slice(0, close + 1), true);
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const port = host.slice(colon);
    if (!validOptionalPort(port)) return `invalid port ${goQuote(port)} after host`;
  }
  return checkEscapes(host, true);
}

export function parseRequestUri(raw: string): RequestUriResult {
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail(raw, 'net/url: invalid control character in URL');
  if (raw === '') return fail(raw, 'empty url');
  const uri: RequestUri = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', forceQuery: false };
  if (raw === '*') return { ok: true, uri: { ...uri, path: '*', rawPath: '*' } };
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return fail(raw, 'missing protocol scheme');
      uri.scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    uri.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      uri.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (uri.scheme !== '') return { ok: true, uri: { ...uri, opaque: rest } };
    return fail(raw, 'invalid URI for request');
  }
  if (uri.scheme !== '' && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash >= 0 ? afterSlashes.slice(0, slash) : afterSlashes;
    rest = slash >= 0 ? afterSlashes.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    let host = authority;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return fail(raw, 'net/url: invalid userinfo');
      const bad = checkEscapes(userinfo, false);
      if (bad) return fail(raw, bad);
      uri.userinfo = userinfo;
      host = authority.slice(at + 1);
    }
    const badHost = parseHost(host);
    if (badHost) return fail(raw, badHost);
    uri.host = unescape(host);
  }
  const badPath = checkEscapes(rest, false);
  if (badPath) return fail(raw, badPath);
  uri.rawPath = rest;
  uri.path = unescape(rest);
  return { ok: true, uri };
}
