import type { JsonSchema } from '../schema/json-schema';
import { checkValidationRules, ValidationRuleSet } from './validation-rules';

// Rules written in the idioms of the ecosystem's most used CRDs (route and gateway APIs): lists of 16 to 64
// items checked pairwise with nested all/exists_one, has() behind ternaries, raw-string regexes, durations
// parsed from pattern-checked strings, IP checks and transition rules. Kubernetes 1.32 accepts CRDs of this
// shape, so the checker and the cost estimate must too, and the rules must then run. (A rule runs once per
// item of every list above it: a pairwise rule on 16 headers of 64 matches of 16 rules, with names of 256
// characters, is over Kubernetes' budget, so the matches here are 8 and the names 64.)

const str = (maxLength: number, extra: Record<string, unknown> = {}) => ({ type: 'string', maxLength, ...extra });
const list = (items: Record<string, unknown>, maxItems: number, rules: Record<string, unknown>[] = []) => ({
  type: 'array',
  maxItems,
  items,
  ...(rules.length > 0 ? { 'x-svc-validations': rules } : {}),
});

const listener = {
  type: 'object',
  required: ['name', 'port', 'protocol'],
  properties: {
    name: str(253),
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    protocol: str(255),
    hostname: str(253, {
      'x-svc-validations': [
        { rule: 'self.matches(r"""^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$""")', message: 'bad hostname' },
      ],
    }),
    tls: {
      type: 'object',
      properties: { mode: str(16), certificateRefs: list({ type: 'object', properties: { name: str(253) } }, 64) },
      'x-svc-validations': [
        {
          rule: "!has(self.mode) || self.mode != 'Terminate' || (has(self.certificateRefs) && size(self.certificateRefs) > 0)",
          message: 'a terminating listener needs a certificate',
        },
      ],
    },
  },
};

const filter = {
  type: 'object',
  required: ['type'],
  properties: {
    type: str(32),
    rewrite: { type: 'object', properties: { prefix: str(1024), host: str(253) } },
    redirect: { type: 'object', properties: { statusCode: { type: 'integer' } } },
  },
  'x-svc-validations': [
    { rule: "self.type == 'Rewrite' ? has(self.rewrite) : !has(self.rewrite)", message: 'rewrite goes with type Rewrite' },
    { rule: "!(has(self.redirect) && self.type != 'Redirect')", message: 'redirect goes with type Redirect' },
  ],
};

const routeRule = {
  type: 'object',
  properties: {
    matches: list(
      {
        type: 'object',
        properties: {
          path: {
            type: 'object',
            properties: { type: str(16), value: str(1024) },
            'x-svc-validations': [
              { rule: "self.type in ['Exact', 'Prefix'] ? self.value.startsWith('/') : true", message: 'a path starts with /' },
              { rule: "!self.value.contains('//') && !self.value.endsWith('/..')", message: 'no empty or parent segment' },
            ],
          },
          headers: list({ type: 'object', properties: { name: str(64), value: str(4096) } }, 16, [
            { rule: 'self.all(h1, self.exists_one(h2, h1.name.lowerAscii() == h2.name.lowerAscii()))', message: 'header names are unique' },
          ]),
        },
      },
      8,
    ),
    filters: list(filter, 16, [
      { rule: "self.filter(f, f.type == 'Redirect').size() <= 1", message: 'one redirect at most' },
      { rule: "!(self.exists(f, f.type == 'Redirect') && self.exists(f, f.type == 'Rewrite'))", message: 'redirect or rewrite, not both' },
    ]),
    timeouts: {
      type: 'object',
      properties: { request: str(32, { pattern: '^([0-9]{1,5}(h|m|s|ms)){1,4}$' }), backend: str(32, { pattern: '^([0-9]{1,5}(h|m|s|ms)){1,4}$' }) },
      'x-svc-validations': [
        {
          rule: "!(has(self.request) && has(self.backend) && duration(self.request) != duration('0s') && duration(self.backend) > duration(self.request))",
          message: 'the backend timeout fits in the request timeout',
        },
      ],
    },
  },
  'x-svc-validations': [
    {
      rule: "(has(self.filters) && self.filters.exists(f, f.type == 'Rewrite' && has(f.rewrite.prefix))) ? has(self.matches) && self.matches.size() == 1 && self.matches[0].path.type == 'Prefix' : true",
      message: 'a prefix rewrite needs exactly one prefix match',
    },
  ],
};

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        className: str(253, { 'x-svc-validations': [{ rule: 'self == oldSelf', message: 'className is immutable' }] }),
        addresses: list(
          {
            type: 'object',
            properties: { type: str(253), value: str(253) },
            'x-svc-validations': [{ rule: "self.type == 'IPAddress' ? isIP(self.value) : true", message: 'not an IP' }],
          },
          16,
          [
            {
              rule: "self.all(a1, a1.type == 'IPAddress' ? self.exists_one(a2, a2.type == a1.type && a2.value == a1.value) : true)",
              message: 'addresses are unique',
            },
          ],
        ),
        listeners: list(listener, 64, [
          { rule: 'self.all(l1, self.exists_one(l2, l1.name == l2.name))', message: 'listener names are unique' },
          {
            rule: 'self.all(l1, self.exists_one(l2, l1.port == l2.port && l1.protocol == l2.protocol && (has(l1.hostname) && has(l2.hostname) ? l1.hostname == l2.hostname : !has(l1.hostname) && !has(l2.hostname))))',
            message: 'port, protocol and hostname are unique',
          },
          { rule: "self.all(l, l.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(l.tls) : true)", message: 'no tls for plain protocols' },
        ]),
        parentRefs: list({ type: 'object', required: ['name'], properties: { name: str(253), section: str(253) } }, 32, [
          {
            rule: "self.all(p1, self.exists_one(p2, p1.name == p2.name && (has(p1.section) ? p1.section : '') == (has(p2.section) ? p2.section : '')))",
            message: 'parent references are unique',
          },
        ]),
        rules: list(routeRule, 16, [
          { rule: '(self.size() > 0 ? self[0].matches.size() : 0) + (self.size() > 1 ? self[1].matches.size() : 0) <= 128', message: 'too many matches' },
        ]),
      },
    },
  },
} as JsonSchema;

describe('rules in the idioms of widely used CRDs', () => {
  it('type-check and fit the cost budgets at write time', () => {
    const { errors, costs } = checkValidationRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
    expect(errors).toEqual([]);
    expect(costs).toHaveLength(19);
  });

  it('run: a valid object passes and each broken rule reports its message', () => {
    const rules = ValidationRuleSet.of(schema)!;
    const good = {
      spec: {
        className: 'a',
        addresses: [
          { type: 'IPAddress', value: '10.0.0.1' },
          { type: 'Hostname', value: 'x' },
        ],
        listeners: [
          { name: 'http', port: 80, protocol: 'HTTP' },
          { name: 'https', port: 443, protocol: 'HTTPS', hostname: '*.example.com', tls: { mode: 'Terminate', certificateRefs: [{ name: 'c' }] } },
        ],
        parentRefs: [{ name: 'gw' }, { name: 'gw', section: 'http' }],
        rules: [
          {
            matches: [{ path: { type: 'Prefix', value: '/api' }, headers: [{ name: 'X-Env', value: 'prod' }] }],
            filters: [{ type: 'Rewrite', rewrite: { prefix: '/v2' } }],
            timeouts: { request: '10s', backend: '5s' },
          },
        ],
      },
    };
    expect(rules.validate(good)).toEqual([]);
    const bad = {
      spec: {
        addresses: [{ type: 'IPAddress', value: '10.0.0.300' }],
        listeners: [
          { name: 'a', port: 80, protocol: 'HTTP', hostname: 'Bad_Host', tls: {} },
          { name: 'a', port: 443, protocol: 'HTTPS', tls: { mode: 'Terminate' } },
        ],
        parentRefs: [{ name: 'gw' }, { name: 'gw', section: '' }],
        rules: [
          {
            matches: [
              {
                path: { type: 'Exact', value: 'api//x' },
                headers: [
                  { name: 'a', value: '1' },
                  { name: 'A', value: '2' },
                ],
              },
            ],
            filters: [
              { type: 'Rewrite', rewrite: { prefix: '/' } },
              { type: 'Redirect', redirect: { statusCode: 301 } },
              { type: 'Other', redirect: {} },
            ],
            timeouts: { request: '1s', backend: '1m' },
          },
        ],
      },
    };
    expect(rules.validate(bad).map((e) => `${e.field}: ${e.detail}`)).toEqual(
      expect.arrayContaining([
        'spec.addresses[0]: not an IP',
        'spec.listeners: listener names are unique',
        'spec.listeners: no tls for plain protocols',
        'spec.listeners[0].hostname: bad hostname',
        'spec.listeners[1].tls: a terminating listener needs a certificate',
        'spec.parentRefs: parent references are unique',
        'spec.rules[0]: a prefix rewrite needs exactly one prefix match',
        'spec.rules[0].matches[0].path: a path starts with /',
        'spec.rules[0].matches[0].path: no empty or parent segment',
        'spec.rules[0].matches[0].headers: header names are unique',
        'spec.rules[0].filters: redirect or rewrite, not both',
        'spec.rules[0].filters[2]: redirect goes with type Redirect',
        'spec.rules[0].timeouts: the backend timeout fits in the request timeout',
      ]),
    );
  });

  it('runs the transition rule on updates only', () => {
    const rules = ValidationRuleSet.of(schema)!;
    expect(rules.validate({ spec: { className: 'b' } })).toEqual([]);
    expect(rules.validateTransition({ spec: { className: 'b' } }, { spec: { className: 'a' } }).map((e) => e.detail)).toEqual(['className is immutable']);
  });
});
