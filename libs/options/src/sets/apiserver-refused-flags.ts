import { UNSUPPORTED_SHARED_FLAGS } from '../flag-set/unsupported-shared-flags';
import type { RefusedFlag } from '../flag-set/refused-flags';

const YET = (what: string): string => `is not supported by this API server yet: ${what}`;
const NO_CLOUD = 'this API server runs no cloud provider integration';

/**
 * Flags of the table (spec 2) whose effect this API server lacks: a value other than the default
 * would be accepted and ignored, so it is refused with the reason.
 */
export const API_SERVER_REFUSED_FLAGS: readonly RefusedFlag[] = [
  { flag: 'admission-control-config-file', reason: YET('its admission plugins take no configuration') },
  { flag: 'cloud-config', reason: NO_CLOUD },
  { flag: 'cloud-provider-gce-l7lb-src-cidrs', reason: NO_CLOUD },
  { flag: 'egress-selector-config-file', reason: YET('it dials node agents and webhooks directly') },
  { flag: 'external-hostname', reason: YET('no URL it serves is built from a host name') },
  { flag: 'goaway-chance', reason: YET('it serves HTTP/1.1, which has no GOAWAY') },
  { flag: 'max-connection-bytes-per-sec', reason: YET('long-running requests are not throttled') },
  // Every object is stored as JSON whatever the flag says: that one value is honoured.
  { flag: 'storage-media-type', reason: YET('objects are stored as application/json'), alsoAccepted: ['application/json'] },
  { flag: 'tracing-config-file', reason: YET('it exports no traces') },
  ...UNSUPPORTED_SHARED_FLAGS,
];
