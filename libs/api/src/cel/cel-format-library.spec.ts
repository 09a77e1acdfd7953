import type { JsonSchema } from '../schema/json-schema';
import { ruleCost } from './cel-cost.spec';
import { compileCel } from './cel-environment';
import { FORMAT_NAMES } from './cel-format-library';
import { actualCost } from './cel-runtime-cost.spec';

// Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go, in the environment since
// 1.31), with the cases of its format_test.go and cost_test.go and of apiextensions-apiserver's
// validation_test.go ("format").

function evaluate(source: string, bindings: Record<string, unknown> = {}) {
  return compileCel(source, ['self']).evaluate(bindings);
}

function messages(source: string): string[] | undefined {
  const out = evaluate(`${source}.orValue([])`);
  if (!out.ok) throw new Error(out.error);
  const list = Array.from(out.value as Iterable<string>);
  return list.length === 0 ? undefined : list;
}

const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe('the format library', () => {
  it.each([
    ['format.dns1123Label().validate("my-label-name")', undefined],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io")', undefined],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', undefined],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-")', undefined],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', undefined],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-")', undefined],
    ['format.uri().validate("http://example.com")', undefined],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', undefined],
    ['format.byte().validate("aGVsbG8=")', undefined],
    ['format.date().validate("2021-01-01")', undefined],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', undefined],
    ['format.dns1123Label().validate("contains a space")', [LABEL]],
    ['format.dns1123Subdomain().validate("contains a space")', [SUBDOMAIN]],
    ['format.dns1035Label().validate("contains a space")', [DNS1035]],
    [
      'format.qualifiedName().validate("contains a space")',
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['format.dns1123LabelPrefix().validate("contains a space-")', [LABEL]],
    ['format.dns1123SubdomainPrefix().validate("contains a space-")', [SUBDOMAIN]],
    ['format.dns1035LabelPrefix().validate("contains a space-")', [DNS1035]],
    ['format.dns1123Label().validate("a.b")', ['must not contain dots']],
    ['format.dns1123Label().validate("' + 'a'.repeat(64) + '")', ['must be no more than 63 characters']],
    ['format.byte().validate("aGVsbG8")', ['invalid base64']],
    ['format.date().validate("2020-01-32")', ['invalid date']],
    ['format.date().validate("2021-02-29")', ['invalid date']],
    ['format.date().validate("2020-02-29")', undefined],
    ['format.datetime().validate("2020-01-32T00:00:00Z")', ['invalid datetime']],
    ['format.datetime().validate("2020-01-01T24:00:00Z")', ['invalid datetime']],
    ['format.datetime().validate("2020-01-01t10:00:00.5+01:00")', undefined],
    ['format.uuid().validate("123e4567e89b12d3a456426614174000")', undefined],
    ['format.uuid().validate("123e4567-e89b-12d3-a456")', ['does not match the UUID format']],
    ['format.uri().validate("foo")', ['parse "foo": invalid URI for request']],
    ['format.uri().validate("/just/a/path")', undefined],
    ['format.uri().validate("http://host:port/")', ['parse "http://host:port/": invalid port ":port" after host']],
    ['format.uri().validate("http://a b.com/")', ['parse "http://a b.com/": invalid character " " in host name']],
    ['format.uri().validate("")', ['parse "": empty url']],
    ['format.labelValue().validate("my-cool-label-Value")', undefined],
    [
      'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
  ])('%s gives %j', (source, expected) => {
    expect(messages(source)).toEqual(expected);
  });

  it('knows each of the thirteen names, under format.named and as a function', () => {
    expect(FORMAT_NAMES).toHaveLength(13);
    for (const name of FORMAT_NAMES) {
      expect(evaluate(`format.named("${name}").hasValue()`)).toEqual({ ok: true, value: true });
      expect(evaluate(`format.named("${name}").value() == format.${name}()`)).toEqual({ ok: true, value: true });
      for (const other of FORMAT_NAMES) {
        if (other !== name) expect(evaluate(`format.${name}() == format.${other}()`)).toEqual({ ok: true, value: false });
      }
    }
    expect(evaluate('format.named("unknown").hasValue()')).toEqual({ ok: true, value: false });
    expect(evaluate('format.named("dns1123label").hasValue()')).toEqual({ ok: true, value: false });
  });

  it('passes the rules of validation_test.go', () => {
    for (const rule of [
      `format.named("dns1123Label").value().validate("my-name") == optional.none()`,
      `format.dns1123Label().validate("contains a space").value()[0] == "${LABEL}"`,
      `!format.named("unknown").hasValue()`,
      `format.dns1123Label().validate("my-label-name") == optional.none()`,
    ]) {
      expect(evaluate(rule)).toEqual({ ok: true, value: true });
    }
  });

  it('compares an optional with null as cel-go does: never equal, so a rule written `validate(self) == null` always fails', () => {
    const rule = 'size(self) == 0 || format.dns1123Label().validate(self) == null';
    expect(evaluate(rule, { self: '' })).toEqual({ ok: true, value: true });
    expect(evaluate(rule, { self: 'http' })).toEqual({ ok: true, value: false });
    expect(evaluate(rule, { self: 'Not A Label' })).toEqual({ ok: true, value: false });
    expect(evaluate('!format.dns1123Label().validate(self).hasValue()', { self: 'http' })).toEqual({ ok: true, value: true });
  });

  it('refuses what Kubernetes refuses', () => {
    expect(() => compileCel('format.nope()', [])).toThrow("undeclared reference to 'format'");
    expect(() => compileCel('format.dns1123Label() == 1', [])).toThrow("found no matching overload for '_==_' applied to '(kubernetes.NamedFormat, int)'");
  });

  // cost_test.go's TestNameFormatCost.
  it.each([
    ['format.named("dns1123subdomain")', 1n, 1],
    ['format.named("dns1123Subdomain").value().validate("my-name")', 34n, 17],
    ['format.named("dns1123Label").value().validate("my-name")', 34n, 10],
    ['format.named("dns1123Label").value() == format.named("dns1123Label").value()', 11n, 5],
    ['format.uri().validate("foo")', 33n, 277],
  ])('%s costs an estimated %s and %s when run', (expression, estimated, actual) => {
    const schema: JsonSchema = { type: 'object', properties: {} };
    expect(ruleCost(schema, expression)).toBe(estimated);
    const out = compileCel(expression, ['self']).evaluateWithCost({}, 1_000_000);
    expect(out.cost).toBe(actual);
  });

  it('estimates a rule on a bounded string from its maxLength', () => {
    const schema: JsonSchema = { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } };
    // size(self.name): 2 + 1; validate: 63 × 4 bytes × 0.1, rounded up, × 128 × 0.25 = 26 × 32.
    expect(ruleCost(schema, 'size(self.name) == 0 || !format.dns1123Label().validate(self.name).hasValue()')).toBe(3n + 1n + 2n + 1n + 832n + 1n + 1n);
    expect(actualCost('size(self.name) == 0 || !format.dns1123Label().validate(self.name).hasValue()', { name: 'http' })).toBe(17);
  });
});
