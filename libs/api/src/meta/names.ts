import type { FieldError } from '../schema/field-error';
/**
 * Name and key formats of Kubernetes' validation package, as JSON Schema patterns. The
 * messages are what Kubernetes prints, so that the engine's pattern errors read the same.
 */

const DNS1123_LABEL_FRAGMENT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

export const DNS1123_LABEL_PATTERN = `^${DNS1123_LABEL_FRAGMENT}$`;
export const DNS1123_LABEL_MAX_LENGTH = 63;

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
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export const LABEL_VALUE_PATTERN = `^(${QUALIFIED_NAME_FRAGMENT})?$`;
export const LABEL_VALUE_MAX_LENGTH = 63;

/** Keys of ConfigMap and Secret data. */
export const CONFIG_MAP_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';

/** Percent form of an IntOrString (maxSurge, maxUnavailable). */
export const PERCENT_PATTERN = '^[0-9]+%$';

/** The patterns above: the project's own, which the schema engine runs with JavaScript's RegExp. */
export const BUILTIN_PATTERNS: ReadonlySet<string> = new Set([
  DNS1123_LABEL_PATTERN,
  DNS1123_SUBDOMAIN_PATTERN,
  DNS1035_LABEL_PATTERN,
  QUALIFIED_NAME_PATTERN,
  ANNOTATION_KEY_PATTERN,
  LABEL_VALUE_PATTERN,
  CONFIG_MAP_KEY_PATTERN,
  PERCENT_PATTERN,
]);

/** Kubernetes' IsValidPathSegmentName, less the `.` and `..` names every write refuses already. */
export const PATH_SEGMENT_NAME_PATTERN = '^[^/%]+$';

export const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [
    DNS1123_LABEL_PATTERN,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ],
  [
    DNS1123_SUBDOMAIN_PATTERN,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ],
  [
    DNS1035_LABEL_PATTERN,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ],
  [
    QUALIFIED_NAME_PATTERN,
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'); the name part must be no more than 63 characters",
  ],
  [
    ANNOTATION_KEY_PATTERN,
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'); the name part must be no more than 63 characters",
  ],
  [
    LABEL_VALUE_PATTERN,
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ],
  [
    CONFIG_MAP_KEY_PATTERN,
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ],
  [PATH_SEGMENT_NAME_PATTERN, "may not contain '/' or '%'"],
  [PERCENT_PATTERN, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"],
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
  return size > TOTAL_ANNOTATION_SIZE_LIMIT ? [{ type: 'FieldValueTooLong', field, detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` }] : [];
}
