import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { componentGitVersion, CURRENT_RELEASE } from '@svc/api';
import type { TlsVersionName } from '@svc/options';

export type { TlsVersionName };

/** The shape `/version` answers with and `--version` prints; the fields Kubernetes clients parse. */
export interface ServerVersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * What the serving shell of the API server needs, one field per flag of document 2 (camelCase),
 * durations already converted to milliseconds. The process entry maps parsed flags onto this.
 */
export interface ApiServerServingConfig {
  /** `--bind-address`; blank, `0.0.0.0` or `::` listen on all interfaces. */
  bindAddress: string;
  /** `--secure-port`; 0 picks a free port (tests only: the flag itself refuses 0). */
  securePort: number;
  /** `--cert-dir`: where a self-signed CA and serving pair are generated when no cert/key files are given. */
  certDir: string;
  /** `--tls-cert-file` (PEM, may hold the chain). */
  tlsCertFile?: string;
  /** `--tls-private-key-file` (PEM). */
  tlsPrivateKeyFile?: string;
  /** `--profiling`: serve `/debug/pprof/`. */
  profiling?: boolean;
  /** `--tls-min-version`. */
  tlsMinVersion?: TlsVersionName;
  /** `--tls-cipher-suites`, Go/IANA names (the flag refuses names it does not know). */
  tlsCipherSuites?: readonly string[];
  /** `--advertise-address`: added to the generated certificate's names. */
  advertiseAddress?: string;
  /** The `kubernetes` Service's ClusterIP (the first of `--service-cluster-ip-range`): added to the generated certificate's names. */
  kubernetesServiceIP?: string;
  /** Path of the client connection file (kubeconfig format) written once the server listens; none when empty. */
  svcconfigOut?: string;
  /** `--shutdown-delay-duration`. */
  shutdownDelayDurationMs: number;
  /** `--shutdown-send-retry-after`. */
  shutdownSendRetryAfter: boolean;
  /** `--livez-grace-period`. */
  livezGracePeriodMs: number;
  /** `--request-timeout`, for requests that are not long-running. */
  requestTimeoutMs: number;
  /** `--min-request-timeout`, the floor of a watch's randomized lifetime. */
  minRequestTimeoutSeconds: number;
  /** `--max-requests-inflight`; 0 disables the cap. */
  maxRequestsInflight: number;
  /** `--max-mutating-requests-inflight`; 0 disables the cap. */
  maxMutatingRequestsInflight: number;
  /** `--strict-transport-security-directives`. */
  strictTransportSecurityDirectives: readonly string[];
  /** `--cors-allowed-origins` (regular expressions); empty disables CORS. */
  corsAllowedOrigins: readonly string[];
  /** Largest request body accepted, in bytes (Kubernetes' fixed 3 MiB). */
  maxRequestBodyBytes: number;
  /** What `/version` reports. */
  version: ServerVersionInfo;
  /** The built web console, served at `/console/` when the directory holds one; none otherwise. */
  consoleDir?: string;
}

/** Kubernetes' MaxRequestBodyBytes. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The Kubernetes release whose API this server serves (see CURRENT_RELEASE): what `/version` reports,
 * recent enough that kubectl of 1.31 to 1.33 warns of no version skew.
 */
export const REFERENCE_RELEASE = { major: '1', minor: CURRENT_RELEASE.split('.')[1] } as const;

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** Version info of this build: the release it serves, tagged with the package version as build metadata. */
export function defaultVersionInfo(): ServerVersionInfo {
  const packageVersion = findPackageVersion() ?? '0.0.0';
  return {
    major: REFERENCE_RELEASE.major,
    minor: REFERENCE_RELEASE.minor,
    gitVersion: componentGitVersion(packageVersion),
    gitCommit: '',
    gitTreeState: '',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}

/** The defaults of document 2, with the given fields on top. */
export function servingConfig(overrides: Partial<ApiServerServingConfig> = {}): ApiServerServingConfig {
  return {
    bindAddress: '0.0.0.0',
    securePort: 6443,
    certDir: '/var/run/svc',
    shutdownDelayDurationMs: 0,
    shutdownSendRetryAfter: false,
    livezGracePeriodMs: 0,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    strictTransportSecurityDirectives: [],
    corsAllowedOrigins: [],
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    version: defaultVersionInfo(),
    ...overrides,
  };
}

// The source tree and the built tree sit at different depths below the package root.
function findPackageVersion(): string | undefined {
  let dir = __dirname;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
        // The repository's root, or this library installed as its own package.
        if ((pkg.name === 'svc-control-plane' || pkg.name === '@svc/apiserver') && pkg.version) return pkg.version;
      } catch {
        // an unreadable package.json further up is not ours
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
