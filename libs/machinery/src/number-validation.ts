/**
 * Kubernetes' checks of numbers (`k8s.io/apimachinery/pkg/util/validation` and the `Validate*Field`
 * helpers of its API validation), with their message texts. Each check returns the list of problems,
 * empty when valid.
 */

/** What Kubernetes says of a negative count, duration or generation. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** `must be between 1 and 65535, inclusive`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

/** A TCP, UDP or SCTP port number: 1 to 65535. */
export function isValidPortNum(port: number): string[] {
  return isInRange(port, 1, 65535);
}

/** Counts, durations and generations that may be zero but not less. */
export function isNonnegative(value: number): string[] {
  return value < 0 ? [IS_NEGATIVE_ERROR_MSG] : [];
}

/** What Kubernetes says of a file mode (a volume's defaultMode, an item's mode) out of range. */
export const FILE_MODE_ERROR_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

/** The longest ClientIP session affinity a Service may ask for, in seconds (a day). */
export const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

/** A Service's `sessionAffinityConfig.clientIP.timeoutSeconds` out of range. */
export const CLIENT_IP_AFFINITY_TIMEOUT_ERROR_MSG = `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`;

/** An admission webhook's `timeoutSeconds` out of range. */
export const WEBHOOK_TIMEOUT_ERROR_MSG = 'the timeout value must be between 1 and 30 seconds';

/** A projected service account token shorter than Kubernetes allows. */
export const TOKEN_EXPIRATION_TOO_SHORT_MSG = 'may not specify a duration less than 10 minutes';
