import { fieldErrorMessage } from '@svc/machinery';
import { compileKind } from '../../schema/compile-kind';
import type { ApiObject, KindDefinition } from '../kind-definition';
import { buildTable } from '../table';
import { defaultIngressClassOf, ingressClassDefinition, ingressDefinition, networkPolicyDefinition } from './networking-definitions';

// The networking kinds' defaults, validation, strategies and tables, against what Kubernetes 1.32 answers.

function created(def: KindDefinition, input: unknown): { object: ApiObject; errors: string[] } {
  const object = structuredClone(input) as ApiObject;
  def.strategy.prepareForCreate?.(object);
  compileKind(def).default(object);
  return { object, errors: compileKind(def).validate(object).map(fieldErrorMessage) };
}

function updated(def: KindDefinition, current: ApiObject, change: (o: ApiObject) => void): string[] {
  const next = structuredClone(current);
  change(next);
  compileKind(def).default(next);
  return [...compileKind(def).validate(next, current), ...(def.strategy.validateUpdate?.(next, current) ?? [])].map(fieldErrorMessage);
}

const backend = (name = 'web', port: Record<string, unknown> = { number: 80 }) => ({ service: { name, port } });
const ingress = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ metadata: { name: 'web', namespace: 'shop', ...extra }, spec });
const rule = (paths: unknown[], host?: string) => ({ ...(host === undefined ? {} : { host }), http: { paths } });

describe('Ingress', () => {
  it('refuses a Prefix or Exact path that is not absolute, and one without a pathType, with Kubernetes’ messages', () => {
    const { errors } = created(
      ingressDefinition,
      ingress({
        rules: [
          rule([
            { path: 'api', pathType: 'Prefix', backend: backend() },
            { path: '/a//b', pathType: 'Exact', backend: backend() },
            { path: '/x', backend: backend() },
            { path: 'rel', pathType: 'ImplementationSpecific', backend: backend() },
            { path: '/y/..', pathType: 'Prefix', backend: backend() },
            { path: '/z', pathType: 'Regex', backend: backend() },
          ]),
        ],
      }),
    );
    expect(errors).toEqual([
      'spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path',
      `spec.rules[0].http.paths[1].path: Invalid value: "/a//b": must not contain '//'`,
      'spec.rules[0].http.paths[2].pathType: Required value: pathType must be specified',
      'spec.rules[0].http.paths[3].path: Invalid value: "rel": must be an absolute path',
      `spec.rules[0].http.paths[4].path: Invalid value: "/y/..": cannot end with '/..'`,
      'spec.rules[0].http.paths[5].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]);
  });

  it('checks hosts, backends, TLS and the class', () => {
    const { errors } = created(
      ingressDefinition,
      ingress({
        ingressClassName: 'Bad_Class',
        rules: [
          rule([{ path: '/', pathType: 'Prefix', backend: backend('web', { name: 'http', number: 80 }) }], '10.0.0.1'),
          rule([{ path: '/', pathType: 'Prefix', backend: backend('Web') }], '*.*.example'),
          rule([{ path: '/', pathType: 'Prefix', backend: backend('web', {}) }], 'ok.example'),
          rule([{ path: '/', pathType: 'Prefix', backend: {} }]),
          rule([]),
        ],
        tls: [{ hosts: ['Upper.example'], secretName: 'x_y' }],
      }),
    );
    expect(errors).toEqual([
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number',
      expect.stringMatching(/^spec\.rules\[1\]\.host: Invalid value: "\*\.\*\.example": a wildcard DNS-1123 subdomain must start with/),
      expect.stringMatching(/^spec\.rules\[1\]\.http\.paths\[0\]\.backend\.service\.name: Invalid value: "Web": a DNS-1035 label must consist of/),
      'spec.rules[2].http.paths[0].backend: Required value: port name or number is required',
      'spec.rules[3].http.paths[0].backend: Invalid value: "": resource or service backend is required',
      'spec.rules[4].http.paths: Required value',
      expect.stringMatching(/^spec\.tls\[0\]\.hosts\[0\]: Invalid value: "Upper\.example": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^spec\.tls\[0\]\.secretName: Invalid value: "x_y": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^spec\.ingressClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain/),
    ]);
  });

  it('needs rules or a default backend; the old class annotation must agree with ingressClassName', () => {
    expect(created(ingressDefinition, ingress({})).errors).toEqual([
      'spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified',
    ]);
    expect(
      created(ingressDefinition, ingress({ ingressClassName: 'svc', defaultBackend: backend() }, { annotations: { 'kubernetes.io/ingress.class': 'nginx' } }))
        .errors,
    ).toEqual(['annotations.kubernetes.io/ingress.class: Invalid value: "nginx": must match `ingressClassName` when both are specified']);
  });

  it('drops the status a create sends, and prints kubectl’s columns', () => {
    const { object, errors } = created(ingressDefinition, {
      ...ingress({
        ingressClassName: 'svc',
        rules: ['a.example', 'b.example', '', 'c.example', 'd.example'].map((h) =>
          rule([{ path: '/', pathType: 'Prefix', backend: backend() }], h || undefined),
        ),
        tls: [{ hosts: ['a.example'], secretName: 'tls' }],
      }),
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    });
    expect(errors).toEqual([]);
    expect(object.status).toEqual({});
    object.status = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example' }] } };
    expect(buildTable(ingressDefinition, [object]).columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    expect(buildTable(ingressDefinition, [object]).rows[0].cells.slice(0, 5)).toEqual([
      'web',
      'svc',
      'a.example,b.example,c.example + 2 more...',
      '192.0.2.1,lb.example',
      '80, 443',
    ]);
    const plain = created(ingressDefinition, ingress({ defaultBackend: backend() })).object;
    expect(buildTable(ingressDefinition, [plain]).rows[0].cells.slice(0, 5)).toEqual(['web', '<none>', '*', '', '80']);
  });

  it('checks the addresses a status write reports', () => {
    const current = created(ingressDefinition, ingress({ defaultBackend: backend() })).object;
    const next = { ...current, status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }, { hostname: '192.0.2.4' }] } } };
    expect(ingressDefinition.strategy.status?.validateUpdate?.(next, current).map(fieldErrorMessage)).toEqual([
      'status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "192.0.2.4": must be a DNS name, not an IP address',
    ]);
  });
});

describe('IngressClass', () => {
  const svcClass = { metadata: { name: 'svc' }, spec: { controller: 'svc.io/ingress' } };

  it('needs a domain-prefixed controller that never changes; parameters default to the cluster scope', () => {
    expect(created(ingressClassDefinition, { metadata: { name: 'c' }, spec: {} }).errors).toEqual(['spec.controller: Required value']);
    expect(created(ingressClassDefinition, { metadata: { name: 'c' }, spec: { controller: 'nginx' } }).errors).toEqual([
      'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
    const { object, errors } = created(ingressClassDefinition, { ...svcClass, spec: { ...svcClass.spec, parameters: { kind: 'Params', name: 'p' } } });
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({ controller: 'svc.io/ingress', parameters: { kind: 'Params', name: 'p', scope: 'Cluster' } });
    expect(
      created(ingressClassDefinition, { ...svcClass, spec: { ...svcClass.spec, parameters: { kind: 'Params', name: 'p', scope: 'Namespace' } } }).errors,
    ).toEqual(["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
    expect(updated(ingressClassDefinition, object, (o) => ((o.spec as Record<string, unknown>).controller = 'example.com/other'))).toEqual([
      'spec.controller: Invalid value: "example.com/other": field is immutable',
    ]);
    expect(buildTable(ingressClassDefinition, [object]).rows[0].cells.slice(0, 3)).toEqual(['svc', 'svc.io/ingress', 'Params./p']);
  });

  it('picks the newest default class, then the first by name', () => {
    const cls = (name: string, created: string, isDefault: boolean): ApiObject => ({
      metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {} },
    });
    const classes = [
      cls('old', '2026-01-01T00:00:00Z', true),
      cls('b', '2026-02-01T00:00:00Z', true),
      cls('a', '2026-02-01T00:00:00Z', true),
      cls('new', '2026-03-01T00:00:00Z', false),
    ];
    expect(defaultIngressClassOf(classes)?.metadata?.name).toBe('a');
    expect(defaultIngressClassOf([cls('x', '2026-01-01T00:00:00Z', false)])).toBeUndefined();
  });
});

describe('NetworkPolicy', () => {
  const policy = (spec: Record<string, unknown>) => ({ metadata: { name: 'p', namespace: 'shop' }, spec });

  it('refuses an invalid CIDR, an except outside its cidr and a port range that runs backwards, with Kubernetes’ messages', () => {
    const { errors } = created(
      networkPolicyDefinition,
      policy({
        ingress: [
          {
            from: [
              { ipBlock: { cidr: '10.0.0.0/33' } },
              { ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/16', 'nope'] } },
              { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} },
              {},
            ],
            ports: [{ port: 90, endPort: 80 }, { port: 'http', endPort: 90 }, { endPort: 90 }, { protocol: 'ICMP', port: 0 }],
          },
        ],
        policyTypes: ['Ingress', 'Sideways'],
      }),
    );
    expect(errors).toEqual([
      'spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`',
      'spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
      'spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is not specified',
      'spec.ingress[0].ports[3].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].ports[3].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`',
      'spec.ingress[0].from[1].ipBlock.except[1]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`',
      'spec.ingress[0].from[1].ipBlock.except[2]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.ingress[0].from[2]: Forbidden: may not specify both ipBlock and another peer',
      'spec.ingress[0].from[3]: Required value: must specify a peer',
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ]);
  });

  it('defaults ports to TCP and the policy types from its rules, and prints its pod selector', () => {
    const ingressOnly = created(networkPolicyDefinition, policy({ ingress: [{ ports: [{ port: 80 }] }] })).object;
    expect(ingressOnly.spec).toEqual({ podSelector: {}, ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }], policyTypes: ['Ingress'] });
    const both = created(networkPolicyDefinition, policy({ podSelector: { matchLabels: { app: 'db' } }, egress: [{}] })).object;
    expect((both.spec as Record<string, unknown>).policyTypes).toEqual(['Ingress', 'Egress']);
    const table = buildTable(networkPolicyDefinition, [ingressOnly, both]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Pod-Selector', 'Age']);
    expect(table.rows.map((r) => r.cells[1])).toEqual(['<none>', 'app=db']);
  });
});
