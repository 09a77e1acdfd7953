import { celError, celList, type CelError } from '@bufbuild/cel';
import { isQualifiedName, isValidLabelValue, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from '@svc/machinery';
import { CelOpaqueValue, CelOptional, celTypeName } from './cel-values';
import { parseRequestUri } from './request-uri';

/**
 * Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go): `format.named(name)`,
 * `format.<name>()` for the thirteen named formats, and `<Format>.validate(string)`, which is
 * optional.none() for a valid string and otherwise optional.of(the list of Kubernetes' messages).
 */

/** Kubernetes' bound on a format's name (cel.MaxFormatSize): the cost of comparing two formats. */
export const MAX_FORMAT_SIZE = 64;
/** The regular expression length the estimate assumes for any format (cel.MaxNameFormatRegexSize). */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;

// The lengths of the patterns the formats are costed by at run time: Kubernetes measures govalidator's
// URL and Base64 patterns and kube-openapi's UUID and date-time patterns.
const GOVALIDATOR_URL_PATTERN_LENGTH = 1103;
const GOVALIDATOR_BASE64_PATTERN_LENGTH = 84;
const UUID_PATTERN_LENGTH = 70;
const DATE_TIME_PATTERN_LENGTH = 71;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02", s): four-digit year, two-digit month and day, a day the month has. */
export function isRfc3339FullDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/** kube-openapi's strfmt IsDateTime, including its leniencies (any character before the fraction). */
export function isStrfmtDateTime(text: string): boolean {
  if (Buffer.byteLength(text) < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !isRfc3339FullDate(parts[0])) return false;
  const m = TIME_OF_DAY.exec(parts[1]);
  if (m === null) return false;
  return m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

interface FormatSpec {
  /** The format's name inside Kubernetes (compared by `==`). */
  name: string;
  validate: (text: string) => string[];
  /** Length of the pattern (or an equivalent) the run-time cost is computed from. */
  maxRegexSize: number;
}

const FORMATS: Record<string, FormatSpec> = {
  dns1123Label: { name: 'DNS1123Label', validate: (s) => nameIsDNSLabel(s, false), maxRegexSize: 30 },
  dns1123Subdomain: { name: 'DNS1123Subdomain', validate: (s) => nameIsDNSSubdomain(s, false), maxRegexSize: 60 },
  dns1035Label: { name: 'DNS1035Label', validate: (s) => nameIsDNS1035Label(s, false), maxRegexSize: 30 },
  qualifiedName: { name: 'QualifiedName', validate: isQualifiedName, maxRegexSize: 60 },
  dns1123LabelPrefix: { name: 'DNS1123LabelPrefix', validate: (s) => nameIsDNSLabel(s, true), maxRegexSize: 30 },
  dns1123SubdomainPrefix: { name: 'DNS1123SubdomainPrefix', validate: (s) => nameIsDNSSubdomain(s, true), maxRegexSize: 60 },
  dns1035LabelPrefix: { name: 'DNS1035LabelPrefix', validate: (s) => nameIsDNS1035Label(s, true), maxRegexSize: 30 },
  labelValue: { name: 'LabelValue', validate: isValidLabelValue, maxRegexSize: 40 },
  uri: {
    name: 'URI',
    validate: (s) => {
      const parsed = parseRequestUri(s);
      return parsed.ok ? [] : [parsed.error];
    },
    maxRegexSize: GOVALIDATOR_URL_PATTERN_LENGTH,
  },
  uuid: { name: 'uuid', validate: (s) => (UUID.test(s) ? [] : ['does not match the UUID format']), maxRegexSize: UUID_PATTERN_LENGTH },
  byte: { name: 'byte', validate: (s) => (BASE64.test(s) ? [] : ['invalid base64']), maxRegexSize: GOVALIDATOR_BASE64_PATTERN_LENGTH },
  date: { name: 'date', validate: (s) => (isRfc3339FullDate(s) ? [] : ['invalid date']), maxRegexSize: DATE_TIME_PATTERN_LENGTH },
  datetime: { name: 'datetime', validate: (s) => (isStrfmtDateTime(s) ? [] : ['invalid datetime']), maxRegexSize: DATE_TIME_PATTERN_LENGTH },
};

/** The names `format.named` knows, each also a function `format.<name>()`. */
export const FORMAT_NAMES: readonly string[] = Object.keys(FORMATS);

/** A value of Kubernetes' kubernetes.NamedFormat type. */
export class CelFormat extends CelOpaqueValue {
  readonly typeName = 'kubernetes.NamedFormat';

  constructor(private readonly spec: FormatSpec) {
    super();
  }

  get maxRegexSize(): number {
    return this.spec.maxRegexSize;
  }

  /** optional.none() when valid, else optional.of(the messages). */
  validate(text: string): CelOptional {
    const problems = this.spec.validate(text);
    return problems.length === 0 ? CelOptional.NONE : CelOptional.of(celList(problems));
  }

  equal(other: unknown): boolean | CelError {
    if (!(other instanceof CelFormat)) return celError(`no such overload: ${this.typeName} == ${celTypeName(other)}`);
    return this.spec.name === other.spec.name;
  }

  toString(): string {
    return this.spec.name;
  }
}

const INSTANCES = new Map(Object.entries(FORMATS).map(([key, spec]) => [key, new CelFormat(spec)]));

/** `format.<name>()`. */
export function namedFormat(name: string): CelFormat | undefined {
  return INSTANCES.get(name);
}

/** `format.named(name)`: optional.of(the format), or optional.none() for a name Kubernetes does not know. */
export function formatNamed(name: string): CelOptional {
  const found = INSTANCES.get(name);
  return found === undefined ? CelOptional.NONE : CelOptional.of(found);
}
