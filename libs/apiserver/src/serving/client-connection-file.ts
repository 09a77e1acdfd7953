import { isIP } from 'node:net';
import { stringify } from 'yaml';
import { writeFileAtomically } from './atomic-write';
import { isUnspecifiedAddress } from './serving-certificates';

export const CLIENT_CONNECTION_NAME = 'svc';

/** The host local clients dial: loopback when the server listens on all interfaces. */
export function clientHost(bindAddress: string): string {
  return isUnspecifiedAddress(bindAddress) ? '127.0.0.1' : bindAddress.replace(/^\[|\]$/g, '');
}

export function serverUrl(host: string, port: number): string {
  return isIP(host) === 6 ? `https://[${host}]:${port}` : `https://${host}:${port}`;
}

/**
 * A name without a password, so that kubectl, which prompts for a user name on stdin whenever a user
 * entry holds nothing it can identify itself with, runs unattended. kubectl then sends a Basic header
 * with an empty password; like Kubernetes, which has no basic authenticator, the server treats the
 * request as anonymous.
 */
export const ANONYMOUS_USER_NAME = 'anonymous';

/** A client certificate and its key (PEM) the connection file authenticates with. */
export interface ClientCredentials {
  certPem: string;
  keyPem: string;
}

/**
 * A kubeconfig-format document with one cluster, one user and one context, all named `svc`; the user
 * holds the given client certificate, or no credentials at all.
 */
export function clientConnectionConfig(server: string, caPem?: string, credentials?: ClientCredentials): Record<string, unknown> {
  const cluster: Record<string, string> = { server };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  const user = credentials
    ? {
        'client-certificate-data': Buffer.from(credentials.certPem).toString('base64'),
        'client-key-data': Buffer.from(credentials.keyPem).toString('base64'),
      }
    : { username: ANONYMOUS_USER_NAME };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CLIENT_CONNECTION_NAME, cluster }],
    users: [{ name: CLIENT_CONNECTION_NAME, user }],
    contexts: [{ name: CLIENT_CONNECTION_NAME, context: { cluster: CLIENT_CONNECTION_NAME, user: CLIENT_CONNECTION_NAME } }],
    'current-context': CLIENT_CONNECTION_NAME,
    preferences: {},
  };
}

export async function writeClientConnectionFile(path: string, server: string, caPem?: string, credentials?: ClientCredentials): Promise<void> {
  await writeFileAtomically(path, stringify(clientConnectionConfig(server, caPem, credentials)), 0o600);
}
