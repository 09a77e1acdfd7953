import type { Ingress } from '@svc/api';
import { requestHost, RouteTable } from './route-table';

const path = (p: string | undefined, pathType: string, service: string) => ({
  ...(p === undefined ? {} : { path: p }),
  pathType,
  backend: { service: { name: service, port: { number: 80 } } },
});

function ingress(name: string, spec: Ingress['spec'], created = '2026-01-01T00:00:00Z'): Ingress {
  return { metadata: { name, namespace: 'shop', creationTimestamp: created }, spec };
}

function serviceAt(table: RouteTable, host: string, p: string): string | undefined {
  const { target } = table.match(host, p);
  return target?.kind === 'service' ? target.backend.service : target?.kind;
}

describe('RouteTable', () => {
  const table = new RouteTable([
    ingress('web', {
      rules: [
        {
          host: 'web.example',
          http: {
            paths: [
              path('/', 'Prefix', 'root'),
              path('/foo', 'Prefix', 'foo'),
              path('/foo/', 'Exact', 'foo-slash'),
              path('/foo/bar', 'Exact', 'foo-bar-exact'),
              path('/foo/bar', 'Prefix', 'foo-bar-prefix'),
              path('/impl', 'ImplementationSpecific', 'impl'),
            ],
          },
        },
        { host: '*.shop.example', http: { paths: [path('/', 'Prefix', 'wild')] } },
        { http: { paths: [path('/any', 'Prefix', 'any-host')] } },
      ],
    }),
    ingress('fallback', { defaultBackend: { service: { name: 'fallback', port: { name: 'http' } } } }, '2026-02-01T00:00:00Z'),
  ]);

  it('matches Prefix paths by elements, Exact paths whole, the longest first and Exact before Prefix', () => {
    expect(serviceAt(table, 'web.example', '/')).toBe('root');
    expect(serviceAt(table, 'web.example', '/foo')).toBe('foo');
    expect(serviceAt(table, 'web.example', '/foo/')).toBe('foo-slash');
    expect(serviceAt(table, 'web.example', '/foobar')).toBe('root');
    expect(serviceAt(table, 'web.example', '/foo/baz')).toBe('foo');
    expect(serviceAt(table, 'web.example', '/foo/bar')).toBe('foo-bar-exact');
    expect(serviceAt(table, 'web.example', '/foo/bar/baz')).toBe('foo-bar-prefix');
    expect(serviceAt(table, 'web.example', '/impl/x')).toBe('impl');
  });

  it('matches a wildcard host by exactly one label, and falls back to rules of no host, then the default backend', () => {
    expect(serviceAt(table, 'a.shop.example', '/x')).toBe('wild');
    expect(serviceAt(table, 'a.b.shop.example', '/any/1')).toBe('any-host');
    expect(serviceAt(table, 'shop.example', '/any')).toBe('any-host');
    expect(serviceAt(table, 'other.example', '/nothing')).toBe('fallback');
    expect(new RouteTable([]).match('web.example', '/').target).toBeUndefined();
  });

  it('reads the Host header as Kubernetes does: without port, case or trailing dot', () => {
    expect(requestHost('Web.Example:8080')).toBe('web.example');
    expect(requestHost('web.example.')).toBe('web.example');
    expect(requestHost('[::1]:80')).toBe('[::1]');
    expect(requestHost(undefined)).toBe('');
  });
});
