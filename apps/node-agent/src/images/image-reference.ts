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

// The reference grammar of distribution/reference, which the kubelet parses every image with.
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_AND_PORT = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;
const DIGEST_SHAPE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** The digest algorithms the kubelet links (go-digest's sha256, sha384, sha512) and their hex lengths. */
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const NAME_TOTAL_LENGTH_MAX = 255;
/** Longer than any valid reference (255 of name, 128 of tag, a sha512 digest): refused before the grammar runs. */
const REFERENCE_LENGTH_MAX = 1024;

/** go-digest's Digest.Validate: undefined when valid, its error text otherwise. */
function digestProblem(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  if (colon <= 0 || colon + 1 === digest.length) return 'invalid checksum digest format';
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const length = DIGEST_LENGTHS[algorithm];
  if (length === undefined) return DIGEST_SHAPE.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  if (encoded.length !== length) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

/** distribution/reference's Parse: undefined when valid, its error text otherwise. */
function referenceProblem(reference: string): string | undefined {
  if (reference === '') return 'repository name must have at least one component';
  const match = REFERENCE.exec(reference);
  if (!match) {
    const lower = reference.toLowerCase();
    return lower !== reference && REFERENCE.test(lower) ? 'repository name must be lowercase' : 'invalid reference format';
  }
  const path = ANCHORED_NAME.exec(match[1])?.[2] ?? match[1];
  if (path.length > NAME_TOTAL_LENGTH_MAX) return `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`;
  return match[3] === undefined ? undefined : digestProblem(match[3]);
}

/**
 * Why an image reference is not one (distribution/reference's ParseNormalizedNamed, as the kubelet
 * applies it before anything else), in its words; undefined for a valid reference.
 */
export function imageReferenceProblem(image: string): string | undefined {
  if (image.length > REFERENCE_LENGTH_MAX) return 'invalid reference format';
  if (IDENTIFIER.test(image)) return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  const slash = image.indexOf('/');
  let domain = 'docker.io';
  let remainder = image;
  if (slash >= 0) {
    const first = image.slice(0, slash);
    const rest = image.slice(slash + 1);
    if (first === 'localhost' || /[.:]/.test(first) || first.toLowerCase() !== first) [domain, remainder] = [first, rest];
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  const tagSeparator = remainder.indexOf(':');
  const remote = tagSeparator < 0 ? remainder : remainder.slice(0, tagSeparator);
  if (remote.toLowerCase() !== remote) return `invalid reference format: repository name (${remote}) must be lowercase`;
  return referenceProblem(`${domain}/${remainder}`);
}
