import { fieldErrorMessage } from './field-errors';
import { validateAnnotations, validateLabels } from './metadata-validation';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  maskTrailingDash,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotationsSize,
  isConfigMapKey,
  isEnvVarName,
  isValidPercent,
  isValidPortName,
} from './name-validation';
import { isInRange, isNonnegative, isValidPortNum } from './number-validation';

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('DNS-1123 label', () => {
  it.each(['a', 'ab', 'a-b', '0', '123-abc', 'a'.repeat(63), '1-2-3'])('accepts %j', (v) => {
    expect(isDNS1123Label(v)).toEqual([]);
  });
  it.each([
    ['', [LABEL_MSG]],
    ['A', [LABEL_MSG]],
    ['-a', [LABEL_MSG]],
    ['a-', [LABEL_MSG]],
    ['a_b', [LABEL_MSG]],
    ['a.b', ['must not contain dots']],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['-'.repeat(64), ['must be no more than 63 characters', LABEL_MSG]],
  ])('rejects %j', (v, errs) => {
    expect(isDNS1123Label(v)).toEqual(errs);
  });
});

describe('DNS-1123 subdomain', () => {
  it.each(['a', 'a.b', 'example.com', 'a-1.b-2.c', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`])('accepts %j', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });
  it.each([
    ['', [SUBDOMAIN_MSG]],
    ['A.b', [SUBDOMAIN_MSG]],
    ['a..b', [SUBDOMAIN_MSG]],
    ['.a', [SUBDOMAIN_MSG]],
    ['a.', [SUBDOMAIN_MSG]],
    ['a_b', [SUBDOMAIN_MSG]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
  ])('rejects %j', (v, errs) => {
    expect(isDNS1123Subdomain(v)).toEqual(errs);
  });
});

describe('DNS-1035 label', () => {
  it.each(['a', 'abc-123', 'a'.repeat(63)])('accepts %j', (v) => {
    expect(isDNS1035Label(v)).toEqual([]);
  });
  it.each([
    ['', [DNS1035_MSG]],
    ['1a', [DNS1035_MSG]],
    ['a-', [DNS1035_MSG]],
    ['a.b', [DNS1035_MSG]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ])('rejects %j', (v, errs) => {
    expect(isDNS1035Label(v)).toEqual(errs);
  });
});

describe('qualified name', () => {
  it.each(['a', 'A', 'MyName', 'my.name', '123-abc', 'a_b', 'example.com/MyName', 'svc.io/app', `${'a'.repeat(253)}/${'b'.repeat(63)}`])('accepts %j', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });
  it.each([
    ['', ['name part must be non-empty', NAME_PART_MSG]],
    ['/a', ['prefix part must be non-empty']],
    ['a/', ['name part must be non-empty', NAME_PART_MSG]],
    ['-a', [NAME_PART_MSG]],
    ['a-', [NAME_PART_MSG]],
    ['a b', [NAME_PART_MSG]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    ['Example.com/a', [`prefix part ${SUBDOMAIN_MSG}`]],
    [`${'a'.repeat(254)}/b`, ['prefix part must be no more than 253 characters']],
    [
      'a/b/c',
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
  ])('rejects %j', (v, errs) => {
    expect(isQualifiedName(v)).toEqual(errs);
  });
});

describe('label value', () => {
  it.each(['', 'a', 'MyValue', 'my_value', '12345', 'a.b-c_d', 'a'.repeat(63)])('accepts %j', (v) => {
    expect(isValidLabelValue(v)).toEqual([]);
  });
  it.each([
    ['-a', [LABEL_VALUE_MSG]],
    ['a-', [LABEL_VALUE_MSG]],
    ['a b', [LABEL_VALUE_MSG]],
    ['a/b', [LABEL_VALUE_MSG]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['é', [LABEL_VALUE_MSG]],
  ])('rejects %j', (v, errs) => {
    expect(isValidLabelValue(v)).toEqual(errs);
  });
});

describe('path segment names', () => {
  it.each(['a', 'a.b', '...', 'A b', 'x:y'])('accepts %j', (v) => {
    expect(isValidPathSegmentName(v)).toEqual([]);
  });
  it.each([
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['/%', ["may not contain '/'", "may not contain '%'"]],
  ])('rejects %j', (v, errs) => {
    expect(isValidPathSegmentName(v)).toEqual(errs);
  });
  it('a prefix may be a dot but not contain a slash', () => {
    expect(isValidPathSegmentPrefix('.')).toEqual([]);
    expect(isValidPathSegmentPrefix('a/')).toEqual(["may not contain '/'"]);
  });
});

describe('object name rules', () => {
  it('masks the trailing dash of a generateName prefix', () => {
    expect(maskTrailingDash('web-')).toBe('wea');
    expect(maskTrailingDash('-')).toBe('-');
    expect(maskTrailingDash('web')).toBe('web');
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([SUBDOMAIN_MSG]);
    expect(nameIsDNSLabel('Web-', true)).toEqual([LABEL_MSG]);
  });
});

describe('labels and annotations of an object', () => {
  it('accepts good maps', () => {
    expect(validateLabels({ app: 'web', 'example.com/tier': '' }, 'metadata.labels')).toEqual([]);
    expect(validateAnnotations({ 'Example.com/Note': 'anything at all: / %' }, 'metadata.annotations')).toEqual([]);
  });

  it('reports bad keys and values at the map path', () => {
    expect(validateLabels({ '-a': 'b c' }, 'metadata.labels').map(fieldErrorMessage)).toEqual([
      `metadata.labels: Invalid value: "-a": ${NAME_PART_MSG}`,
      `metadata.labels: Invalid value: "b c": ${LABEL_VALUE_MSG}`,
    ]);
  });

  it('limits annotations to 256 KiB in total', () => {
    const big = { a: 'x'.repeat(256 * 1024 - 1) };
    expect(validateAnnotationsSize(big)).toEqual([]);
    const tooBig = { a: 'x'.repeat(256 * 1024) };
    expect(validateAnnotationsSize(tooBig)).toEqual(['annotations size 262145 is larger than limit 262144']);
    expect(validateAnnotations(tooBig, 'metadata.annotations').map(fieldErrorMessage)).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  it('counts bytes, not characters', () => {
    expect(validateAnnotationsSize({ a: 'é'.repeat(131072) })).toEqual(['annotations size 262145 is larger than limit 262144']);
  });
});

describe('port names (IsValidPortName)', () => {
  it.each(['http', 'h2c', 'web-8080', 'a'.repeat(15)])('accepts %j', (v) => {
    expect(isValidPortName(v)).toEqual([]);
  });
  it.each([
    ['8080', ['must contain at least one letter (a-z)']],
    ['Http', ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)']],
    ['a--b', ['must not contain consecutive hyphens']],
    ['-web', ['must not begin or end with a hyphen']],
    ['a'.repeat(16), ['must be no more than 15 characters']],
    ['', ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)']],
  ])('rejects %j', (v, errs) => {
    expect(isValidPortName(v)).toEqual(errs);
  });
});

describe('config keys, environment variable names and percentages', () => {
  const CONFIG_KEY =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
  it('checks config keys as IsConfigMapKey does', () => {
    expect(isConfigMapKey('app.properties')).toEqual([]);
    expect(isConfigMapKey('.hidden')).toEqual([]);
    expect(isConfigMapKey('a b')).toEqual([CONFIG_KEY]);
    expect(isConfigMapKey('.')).toEqual(["must not be '.'"]);
    expect(isConfigMapKey('..')).toEqual(["must not be '..'"]);
    expect(isConfigMapKey('..data')).toEqual(["must not start with '..'"]);
    expect(isConfigMapKey('k'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
  it('checks environment variable names as IsEnvVarName does', () => {
    expect(isEnvVarName('MY_VAR.1')).toEqual([]);
    expect(isEnvVarName('1VAR')).toEqual([
      "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
    ]);
  });
  it('checks percentages as IsValidPercent does', () => {
    expect(isValidPercent('25%')).toEqual([]);
    expect(isValidPercent('25')).toEqual([
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
  });
});

describe('numbers', () => {
  it('words ranges, ports and negative counts as Kubernetes does', () => {
    expect(isValidPortNum(0)).toEqual(['must be between 1 and 65535, inclusive']);
    expect(isValidPortNum(65535)).toEqual([]);
    expect(isInRange(5, 0, 4)).toEqual(['must be between 0 and 4, inclusive']);
    expect(isNonnegative(-1)).toEqual(['must be greater than or equal to 0']);
    expect(isNonnegative(0)).toEqual([]);
  });
});
