import {
  fieldTooLong,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPercent,
  isValidPortName,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
} from '@svc/machinery';
import type { FieldError } from '../schema/field-error';
/**
 * Name and key formats of Kubernetes' validation package, as JSON Schema patterns. The
 * messages are what Kubernetes prints, so that the engine's pattern errors read the same.
 */

const DNS1123_LABEL_FRAGMENT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

export const DNS1123_LABEL_PATTERN = `^${DNS1123_LABEL_FRAGMENT}$`;
export const DNS1123_LABEL_MAX_LENGTH = 63;

/** A DNS-1123 label or nothing: an optional name that Go keeps as an empty string (endpoint port names). */
export const OPTIONAL_DNS1123_LABEL_PATTERN = `^$|${DNS1123_LABEL_PATTERN}`;

export const DNS1123_SUBDOMAIN_PATTERN = `^${DNS1123_LABEL_FRAGMENT}(\\.${DNS1123_LABEL_FRAGMENT})*$`;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

export const DNS1035_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
export const DNS1035_LABEL_MAX_LENGTH = 63;

const QUALIFIED_NAME_FRAGMENT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';

/** `[prefix/]name`: prefix a DNS subdomain of at most 253 characters, name at most 63. */
export const QUALIFIED_NAME_PATTERN = `^((?=[^/]{1,253}/)${DNS1123_LABEL_FRAGMENT}(\\.${DNS1123_LABEL_FRAGMENT})*/)?(?=[^/]{1,63}$)${QUALIFIED_NAME_FRAGMENT}$`;

/** Annotation keys: a qualified name checked case-insensitively, as Kubernetes lowercases them first. */
export const ANNOTATION_KEY_PATTERN = `^((?=[^/]{1,253}/)[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*/)?(?=[^/]{1,63}$)${QUALIFIED_NAME_FRAGMENT}$`;

/** Total size of all annotation keys and values of one object. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = TOTAL_ANNOTATION_SIZE_LIMIT_BYTES;

export const LABEL_VALUE_PATTERN = `^(${QUALIFIED_NAME_FRAGMENT})?$`;
export const LABEL_VALUE_MAX_LENGTH = 63;

/** Keys of ConfigMap and Secret data: they become file names, so never `.`, `..` or a leading `..`. */
export const CONFIG_MAP_KEY_PATTERN = '^(?!\\.\\.)(?!\\.$)[-._a-zA-Z0-9]+$';

/** A port's name (an IANA service name): at most 15 of a-z, 0-9 and '-', a letter, no '--', no '-' at either end. */
export const PORT_NAME_PATTERN = '^(?=.{1,15}$)(?=.*[a-z])(?!.*--)[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** Percent form of an IntOrString (maxSurge, maxUnavailable). */
export const PERCENT_PATTERN = '^[0-9]+%$';

/** The patterns above: the project's own, which the schema engine runs with JavaScript's RegExp. */
export const BUILTIN_PATTERNS: ReadonlySet<string> = new Set([
  DNS1123_LABEL_PATTERN,
  OPTIONAL_DNS1123_LABEL_PATTERN,
  DNS1123_SUBDOMAIN_PATTERN,
  DNS1035_LABEL_PATTERN,
  QUALIFIED_NAME_PATTERN,
  ANNOTATION_KEY_PATTERN,
  LABEL_VALUE_PATTERN,
  CONFIG_MAP_KEY_PATTERN,
  PERCENT_PATTERN,
  PORT_NAME_PATTERN,
]);

/** Kubernetes' IsValidPathSegmentName, less the `.` and `..` names every write refuses already. */
export const PATH_SEGMENT_NAME_PATTERN = '^[^/%]+$';

/**
 * The validator of Kubernetes' that each pattern stands for: a built-in field that fails its pattern or
 * its length is reported with that validator's messages (several per value, as Kubernetes lists them),
 * so the texts live once, in machinery, and read exactly as Kubernetes' hand-written validation.
 */
export const PATTERN_VALIDATORS: ReadonlyMap<string, (value: string) => string[]> = new Map<string, (value: string) => string[]>([
  [DNS1123_LABEL_PATTERN, isDNS1123Label],
  [OPTIONAL_DNS1123_LABEL_PATTERN, isDNS1123Label],
  [DNS1123_SUBDOMAIN_PATTERN, isDNS1123Subdomain],
  [DNS1035_LABEL_PATTERN, isDNS1035Label],
  [QUALIFIED_NAME_PATTERN, isQualifiedName],
  // The key rule is a qualified name's, but case does not matter.
  [ANNOTATION_KEY_PATTERN, (value) => isQualifiedName(value.toLowerCase())],
  [LABEL_VALUE_PATTERN, isValidLabelValue],
  [CONFIG_MAP_KEY_PATTERN, isConfigMapKey],
  [PERCENT_PATTERN, isValidPercent],
  [PORT_NAME_PATTERN, isValidPortName],
  [PATH_SEGMENT_NAME_PATTERN, isValidPathSegmentName],
]);

export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

export const NAME_RULES: Readonly<Record<NameRule, { pattern: string; maxLength?: number }>> = {
  // RBAC names (`system:controller:...`): any path segment, no length limit but the object's.
  'path-segment': { pattern: PATH_SEGMENT_NAME_PATTERN },
  'dns1123-subdomain': { pattern: DNS1123_SUBDOMAIN_PATTERN, maxLength: DNS1123_SUBDOMAIN_MAX_LENGTH },
  'dns1123-label': { pattern: DNS1123_LABEL_PATTERN, maxLength: DNS1123_LABEL_MAX_LENGTH },
  'dns1035-label': { pattern: DNS1035_LABEL_PATTERN, maxLength: DNS1035_LABEL_MAX_LENGTH },
};

/** Kubernetes' limit on the total size of an object's annotations (keys and values), at `field`. */
export function annotationSizeErrors(annotations: unknown, field: string): FieldError[] {
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) return [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  return size > TOTAL_ANNOTATION_SIZE_LIMIT ? [fieldTooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT)] : [];
}
