import { unimplementedAdmissionPlugins } from '@svc/apiserver';
import { API_SERVER_FLAGS, refusedFlagProblem, UNSUPPORTED_SHARED_FLAGS, type ApiServerFlags, type RefusedFlag } from '@svc/options';

const YET = (what: string): string => `is not supported by this API server yet: ${what}`;
const NO_CLOUD = 'this API server runs no cloud provider integration';

/**
 * Flags of the table (spec 2) whose effect this API server lacks: a value other than the default
 * would be accepted and ignored, so it is refused with the reason.
 */
const UNSUPPORTED: readonly RefusedFlag[] = [
  { flag: 'admission-control-config-file', reason: YET('its admission plugins take no configuration') },
  { flag: 'cloud-config', reason: NO_CLOUD },
  { flag: 'cloud-provider-gce-l7lb-src-cidrs', reason: NO_CLOUD },
  { flag: 'egress-selector-config-file', reason: YET('it dials node agents and webhooks directly') },
  { flag: 'enable-aggregator-routing', reason: YET('it serves no aggregated APIs') },
  { flag: 'external-hostname', reason: YET('no URL it serves is built from a host name') },
  { flag: 'goaway-chance', reason: YET('it serves HTTP/1.1, which has no GOAWAY') },
  { flag: 'max-connection-bytes-per-sec', reason: YET('long-running requests are not throttled') },
  // Every object is stored as JSON whatever the flag says: that one value is honoured.
  { flag: 'storage-media-type', reason: YET('objects are stored as application/json'), alsoAccepted: ['application/json'] },
  { flag: 'tracing-config-file', reason: YET('it exports no traces') },
  ...UNSUPPORTED_SHARED_FLAGS,
];

/**
 * The first flag given a value this API server would ignore, as the one line to print; undefined when
 * none. An admission plugin enabled by name must do something here; disabling one that does nothing is
 * harmless and accepted.
 */
export function unsupportedFlagProblem(flags: ApiServerFlags): string | undefined {
  const plugins = unimplementedAdmissionPlugins(flags.enableAdmissionPlugins ?? []);
  if (plugins.length > 0) {
    return `--enable-admission-plugins names ${plugins.join(', ')}, which this API server does not implement yet`;
  }
  return refusedFlagProblem(API_SERVER_FLAGS, UNSUPPORTED, flags);
}
