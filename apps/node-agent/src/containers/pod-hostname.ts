import type { Pod } from '@svc/api';

/** The Linux nodename field holds 64 characters. */
const MAX_FQDN_CHARS = 64;
const MAX_HOSTNAME_CHARS = 63;

/** The pod's hostname: its `hostname` field, else its name cut to a DNS label (no `-` or `.` left at the end). */
export function podHostname(pod: Pod): string {
  const hostname = pod.spec?.hostname || pod.metadata?.name || '';
  return hostname.length <= MAX_HOSTNAME_CHARS ? hostname : hostname.slice(0, MAX_HOSTNAME_CHARS).replace(/[-.]+$/, '');
}

/** `<subdomain>.<namespace>.svc.<cluster domain>` for a pod with a subdomain, else empty. */
export function podDomain(pod: Pod, clusterDomain: string): string {
  const subdomain = pod.spec?.subdomain;
  if (!subdomain || !clusterDomain) return '';
  return `${subdomain}.${pod.metadata?.namespace ?? 'default'}.svc.${clusterDomain}`;
}

/** The sandbox's hostname has no room for the FQDN setHostnameAsFQDN asks. */
export class HostnameError extends Error {}

/** The kernel's hostname of the pod: its FQDN with setHostnameAsFQDN and a subdomain, else its hostname. */
export function kernelHostname(pod: Pod, clusterDomain: string): string {
  const hostname = podHostname(pod);
  const domain = podDomain(pod, clusterDomain);
  if (!domain || pod.spec?.setHostnameAsFQDN !== true) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > MAX_FQDN_CHARS) {
    throw new HostnameError(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (${MAX_FQDN_CHARS} characters is the max, ${fqdn.length} characters requested)`,
    );
  }
  return fqdn;
}
