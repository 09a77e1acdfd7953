import fc from 'fast-check';
import { fixtureName } from './fixtures';
import { NS } from './fuzz-input';
import type { FuzzModel, ResourceModel } from './fuzz-model';

/** A path as sent (percent-encoding already applied), what was done to it, and why it must be refused. */
export interface GeneratedPath {
  path: string;
  perturbation: string;
  mustRefuse: string[];
  /** The resource it was made from, when the path names one of its objects unperturbed. */
  resource: ResourceModel;
  /** Whether the path names a single object (not a collection). */
  object: boolean;
  /** A watch through the deprecated `/watch/` segment. */
  watchPrefix: boolean;
}

/** Names in paths: the fixture's mostly, then other valid names, then names no object can have. */
export function nameArbitrary(resource: ResourceModel): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(fixtureName(resource)) },
    { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'fz-new', 'x.y', 'fz-configmap', `fz-${Math.abs(hash(resource.resource)) % 7}`) },
    { weight: 1, arbitrary: fc.constantFrom('UPPER', 'a_b', '-a', 'a'.repeat(300), 'ä', 'a b', 'a:b', '\u0000') },
  );
}

export function namespaceArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant(NS) },
    { weight: 1, arbitrary: fc.constantFrom('default', 'no-such-namespace', 'UPPER', 'a'.repeat(70), '-x') },
  );
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

/** `encodeURIComponent` except the namespace placeholder, which is resolved later. */
export function encodeSegment(segment: string): string {
  return segment
    .split(NS)
    .map((part) => encodeURIComponent(part))
    .join(NS);
}

export function segmentsOf(
  resource: ResourceModel,
  namespace: string,
  name: string | undefined,
  subresource: string | undefined,
  watchPrefix: boolean,
): string[] {
  const base = resource.basePath.slice(1).split('/');
  const scope = resource.namespaced ? ['namespaces', namespace] : [];
  const isNamespace = resource.group === '' && resource.resource === 'namespaces';
  const objectName = isNamespace && name === fixtureName(resource) ? NS : name;
  return [
    ...base,
    ...(watchPrefix ? ['watch'] : []),
    ...scope,
    resource.resource,
    ...(objectName !== undefined ? [objectName] : []),
    ...(subresource ? [subresource] : []),
  ];
}

const PERTURBATIONS = [
  'none',
  'double-slash',
  'trailing-slash',
  'leading-double-slash',
  'dot-segment',
  'encoded-slash',
  'percent-garbage',
  'unicode',
  'long-segment',
  'extra-segments',
  'unknown-group',
  'unknown-version',
  'unknown-resource',
  'upper-case',
  'subresource',
] as const;

/**
 * Resource paths, valid or perturbed: empty segments (inside, leading, trailing), `.`/`..`,
 * percent-encoded slashes and garbage escapes, non-ASCII, 64 KiB segments, unknown groups, versions,
 * resources and subresources, extra segments. Empty and dot segments never name anything
 * (ARCHITECTURE rule 7; Kubernetes answers 404): a request through them must be refused.
 */
export function pathArbitrary(model: FuzzModel): fc.Arbitrary<GeneratedPath> {
  const resources = fc.constantFrom(...model.resources);
  return fc
    .record({
      resource: resources,
      namespace: namespaceArbitrary(),
      object: fc.boolean(),
      nameSeed: fc.nat(),
      perturbation: fc.constantFrom(...PERTURBATIONS),
      position: fc.nat(),
      subresource: fc.constantFrom('status', 'scale', 'finalize', 'log', 'exec', 'binding', 'eviction', 'proxy', 'approval', 'Status', ''),
      garbage: fc.constantFrom('%', '%zz', '%00', '%C0%AF', '%ED%A0%80', '%2e%2e', '%252F', '%FF'),
      unicode: fc.constantFrom('ä', '名前', '😀', '\u202e', 'ﬁ'),
    })
    .chain((r) => nameArbitrary(r.resource).map((name) => ({ ...r, name })))
    .map((r) => {
      const name = r.object ? r.name : undefined;
      const mustRefuse: string[] = [];
      let segments = segmentsOf(r.resource, r.namespace, name, undefined, false).map(encodeSegment);
      const apiLength = r.resource.group === '' ? 2 : 3;
      switch (r.perturbation) {
        case 'double-slash': {
          const at = 1 + (r.position % segments.length);
          segments = [...segments.slice(0, at), '', ...segments.slice(at)];
          mustRefuse.push('an empty path segment');
          break;
        }
        case 'trailing-slash':
          segments = [...segments, ''];
          mustRefuse.push('an empty path segment (trailing slash)');
          break;
        case 'leading-double-slash':
          segments = ['', ...segments];
          mustRefuse.push('an empty path segment (leading double slash)');
          break;
        case 'dot-segment': {
          const at = apiLength + (r.position % (segments.length - apiLength + 1));
          segments = [...segments.slice(0, at), r.position % 2 === 0 ? '.' : '..', ...segments.slice(at)];
          mustRefuse.push('a "." or ".." path segment');
          break;
        }
        case 'encoded-slash':
          segments[segments.length - 1] = `${segments[segments.length - 1]}%2Fx`;
          break;
        case 'percent-garbage':
          segments[segments.length - 1] = `${segments[segments.length - 1]}${r.garbage}`;
          break;
        case 'unicode':
          segments[segments.length - 1] = `${segments[segments.length - 1]}${encodeURIComponent(r.unicode)}`;
          break;
        case 'long-segment':
          segments[segments.length - 1] = 'a'.repeat(r.position % 2 === 0 ? 17_000 : 65_536);
          break;
        case 'extra-segments':
          if (name !== undefined) {
            segments = [...segments, 'x', 'y'];
            mustRefuse.push('segments past any route');
          }
          break;
        case 'unknown-group':
          segments = ['apis', 'no.such.group', 'v1', ...segments.slice(apiLength)];
          break;
        case 'unknown-version':
          segments = [...segments.slice(0, apiLength - 1), 'v9', ...segments.slice(apiLength)];
          break;
        case 'unknown-resource':
          segments = segments.map((s) => (s === r.resource.resource ? `${s}x` : s));
          break;
        case 'upper-case':
          segments = segments.map((s) => (s === r.resource.resource ? s.toUpperCase() : s));
          break;
        case 'subresource':
          if (name !== undefined && r.subresource !== '') segments = [...segments, r.subresource];
          break;
        default:
          break;
      }
      return {
        path: `/${segments.join('/')}`,
        perturbation: r.perturbation,
        mustRefuse,
        resource: r.resource,
        object: name !== undefined,
        watchPrefix: false,
      };
    });
}
