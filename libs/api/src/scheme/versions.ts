/** Version tracks and ordering, as Kubernetes derives them from a version string. */
export type VersionTrack = 'GA' | 'Beta' | 'Alpha';

const KUBE_VERSION = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

export interface ParsedVersion {
  major: number;
  track: VersionTrack;
  minor: number;
}

export function parseVersion(version: string): ParsedVersion | undefined {
  const m = KUBE_VERSION.exec(version);
  if (!m) return undefined;
  const track: VersionTrack = m[2] === 'alpha' ? 'Alpha' : m[2] === 'beta' ? 'Beta' : 'GA';
  return { major: Number(m[1]), track, minor: m[3] ? Number(m[3]) : 0 };
}

/** `v1` -> GA, `v1beta1` -> Beta, `v1alpha1` -> Alpha; undefined for other strings. */
export function versionTrack(version: string): VersionTrack | undefined {
  return parseVersion(version)?.track;
}

const TRACK_RANK: Record<VersionTrack, number> = { GA: 3, Beta: 2, Alpha: 1 };

/**
 * Kubernetes' kube-aware ordering, most preferred first: GA before Beta before Alpha, higher
 * numbers first; strings that are not Kubernetes versions come last, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (!pa) return 1;
  if (!pb) return -1;
  if (pa.track !== pb.track) return TRACK_RANK[pb.track] - TRACK_RANK[pa.track];
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

/**
 * The Kubernetes release whose API this server serves and reports: the specification describes 1.25,
 * and the README lists what changed after it up to this release, served or refused.
 */
export const CURRENT_RELEASE = '1.32';

/**
 * The version every component reports (the API server's `/version` gitVersion, a Node's
 * `nodeInfo.kubeletVersion`): the release served, tagged with this build's version as build metadata.
 */
export function componentGitVersion(buildVersion: string): string {
  return `v${CURRENT_RELEASE}.0+svc.${buildVersion}`;
}

/** Compares `1.22`-style release strings numerically. */
export function compareReleases(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
