/**
 * Kubernetes' name and key rules (`k8s.io/apimachinery/pkg/util/validation`), with its regular
 * expressions, lengths and message texts. Each check returns the list of problems, empty when valid.
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const DNS1035_LABEL_MAX_LENGTH = 63;

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const QUALIFIED_NAME_MAX_LENGTH = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;

/** Total bytes of all annotation keys and values of one object. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Lengths are in bytes, as Go measures strings. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

/** A rule text followed by examples and the regular expression, in Kubernetes' wording. */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  let out = `${message} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${format}')`;
}

/** DNS-1123 label: at most 63 lower case alphanumerics or '-', alphanumeric at both ends. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** DNS-1123 subdomain: dot-separated labels, at most 253 characters. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** DNS-1035 label: like a DNS-1123 label but starting with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** Label and annotation keys: `[prefix/]name`, prefix a DNS-1123 subdomain, name at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0];
      break;
    case 2: {
      const prefix = parts[0];
      name = parts[1];
      if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
      else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
      break;
    }
    default:
      return [
        `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Label values: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

const PORT_NAME_MAX_LENGTH = 15;
const portNameCharsetRe = /^[-a-z0-9]+$/;
const portNameLetterRe = /[a-z]/;

/** An IANA service name (a port's name): at most 15 of a-z, 0-9 and '-', with a letter, no '--', no '-' at either end. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > PORT_NAME_MAX_LENGTH) errs.push(maxLenError(PORT_NAME_MAX_LENGTH));
  if (!portNameCharsetRe.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!portNameLetterRe.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** `.`, `..` and a leading `..` would walk out of a directory a key or name becomes a file in. */
function hasChDirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** Keys of ConfigMap and Secret data (each may become a file name). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value)) errs.push(regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...hasChDirPrefix(value));
  return errs;
}

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_NAME_ERR = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const envVarNameRe = new RegExp(`^${ENV_VAR_NAME_FMT}$`);

/** A container's environment variable name. */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRe.test(value)) errs.push(regexError(ENV_VAR_NAME_ERR, ENV_VAR_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  errs.push(...hasChDirPrefix(value));
  return errs;
}

const PERCENT_FMT = '[0-9]+%';
const percentRe = new RegExp(`^${PERCENT_FMT}$`);

/** The string form of an int-or-percent (`25%`). */
export function isValidPercent(value: string): string[] {
  return percentRe.test(value) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%')];
}

const NAME_MAY_NOT_BE = ['.', '..'];
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** Names that appear as one URL path segment: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of NAME_MAY_NOT_BE) {
    if (name === illegal) return [`may not be '${illegal}'`];
  }
  return isValidPathSegmentPrefix(name);
}

/** A generateName prefix that will become a path segment: no `/` or `%`. */
export function isValidPathSegmentPrefix(name: string): string[] {
  return NAME_MAY_NOT_CONTAIN.filter((illegal) => name.includes(illegal)).map((illegal) => `may not contain '${illegal}'`);
}

/** Total size of annotations; one message when over 256 KiB. */
export function validateAnnotationsSize(annotations: Readonly<Record<string, string>> | undefined): string[] {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += byteLength(k) + byteLength(v);
  return total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES ? [`annotations size ${total} is larger than limit ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES}`] : [];
}

/**
 * A generateName prefix is checked as if a suffix followed it: a trailing dash is fine there,
 * so it is masked before the name rule runs (Kubernetes replaces it this exact way).
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, -2)}a`;
  return name;
}

/** A name rule for `metadata.name` (prefix false) or `metadata.generateName` (prefix true). */
export type NameValidator = (name: string, prefix: boolean) => string[];

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Names that only need to be usable in a URL (custom resources without a stricter rule). */
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));
