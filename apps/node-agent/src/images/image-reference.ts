/** The registry host (with port) and path of an image reference, Docker's defaults applied (`busybox` is on docker.io). */
export function imageRegistry(image: string): { host: string; path: string } {
  const withoutDigest = image.split('@')[0];
  const slash = withoutDigest.indexOf('/');
  const first = slash < 0 ? '' : withoutDigest.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  const rest = hasRegistry ? withoutDigest.slice(slash + 1) : slash < 0 ? `library/${withoutDigest}` : withoutDigest;
  const colon = rest.lastIndexOf(':');
  const path = colon > rest.lastIndexOf('/') ? rest.slice(0, colon) : rest;
  return { host: hasRegistry ? first.toLowerCase() : 'docker.io', path: `/${path}` };
}

/** Go's path.Match for one segment without separators: `*` any run, `?` one character, `[...]` a class. */
function globSegment(pattern: string, text: string): boolean {
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') source += '[^.]*';
    else if (ch === '?') source += '[^.]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return false;
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('^')) body = `^${body.slice(1).replace(/[\\\]]/g, '\\$&')}`;
      else body = body.replace(/[\\\]]/g, '\\$&');
      source += `[${body}]`;
      i = end;
    } else source += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  try {
    return new RegExp(`${source}$`).test(text);
  } catch {
    return false;
  }
}

/**
 * Whether an image matches a `matchImages` entry (Kubernetes' rule): the same number of host labels,
 * each matched by its glob (a glob never spans a dot), the same port if the entry has one, and the
 * entry's path a prefix of the image's.
 */
export function matchesImagePattern(pattern: string, image: string): boolean {
  const slash = pattern.indexOf('/');
  const hostPort = (slash < 0 ? pattern : pattern.slice(0, slash)).toLowerCase();
  const patternPath = slash < 0 ? '' : pattern.slice(slash);
  const target = imageRegistry(image);
  const [patternHost, patternPort] = hostPort.split(':');
  const [targetHost, targetPort] = target.host.split(':');
  if (patternPort !== undefined && patternPort !== targetPort) return false;
  if (patternPort === undefined && targetPort !== undefined) return false;
  const patternLabels = patternHost.split('.');
  const targetLabels = targetHost.split('.');
  if (patternLabels.length !== targetLabels.length) return false;
  if (!patternLabels.every((label, i) => globSegment(label, targetLabels[i]))) return false;
  return target.path.startsWith(patternPath);
}
