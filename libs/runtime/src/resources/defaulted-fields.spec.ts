import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { defineResource, type ResourceType } from './define-resource';
import { Defaulted, type ResourceInput } from './defaulted-fields';
import { installCustomResources } from './install-resources';

const sites = defineResource({
  group: 'defaults.svc.io',
  kind: 'Site',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({
        image: Type.String(),
        replicas: Defaulted(Type.Integer({ minimum: 1 }), 2),
        note: Type.Optional(Type.String()),
        tls: Type.Object({ enabled: Defaulted(Type.Boolean(), false), secretName: Type.Optional(Type.String()) }),
        ports: Type.Array(Type.Object({ port: Type.Integer(), protocol: Defaulted(Type.String(), 'TCP') })),
      }),
      status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
    },
  },
});
type Site = ResourceType<typeof sites>;
type SiteInput = ResourceInput<typeof sites>;

// Compile-time checks: the file does not typecheck unless both types are as described.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_check?: T): void {}

describe('defaulted fields: one schema, a type for creating and a type for reading', () => {
  it('leaves defaulted fields out when creating, in nested objects and array items too', () => {
    const created: SiteInput = { spec: { image: 'httpd:2.4', tls: {}, ports: [{ port: 80 }] } };
    // @ts-expect-error a field without a default is still required
    const missing: SiteInput = { spec: { tls: {}, ports: [] } };
    assertType<Equal<SiteInput['spec']['replicas'], number | undefined>>();
    assertType<Equal<SiteInput['spec']['tls']['enabled'], boolean | undefined>>();
    assertType<Equal<SiteInput['spec']['ports'][number]['protocol'], string | undefined>>();
    expect([created, missing]).toHaveLength(2);
  });

  it('has them present when reading, optional fields staying optional', () => {
    const read = (site: Site): [number, boolean, string, string | undefined] => [
      site.spec.replicas,
      site.spec.tls.enabled,
      site.spec.ports[0]?.protocol ?? '',
      site.spec.note,
    ];
    assertType<Equal<Site['spec']['replicas'], number>>();
    assertType<Equal<Site['spec']['tls']['enabled'], boolean>>();
    assertType<Equal<Site['spec']['ports'][number]['protocol'], string>>();
    // @ts-expect-error an optional field without a default stays optional
    const note: string = ({ spec: {} } as Site).spec.note;
    expect(typeof read).toBe('function');
    expect(note).toBeUndefined();
  });

  it('writes each default into the CRD and leaves the field out of required', () => {
    const spec = sites.crd().spec.versions[0].schema?.openAPIV3Schema?.properties?.spec;
    expect(spec?.required).toEqual(['image', 'tls', 'ports']);
    expect(spec?.properties?.replicas).toEqual({ type: 'integer', minimum: 1, default: 2 });
    expect(spec?.properties?.tls?.properties?.enabled).toEqual({ type: 'boolean', default: false });
    expect(spec?.properties?.tls?.required).toBeUndefined();
    expect(spec?.properties?.ports?.items?.required).toEqual(['port']);
  });

  describe('on an API server', () => {
    let env: TestEnvironment;
    beforeAll(async () => {
      env = await startTestEnvironment();
      await installCustomResources(env.client, [sites]);
    });
    afterAll(() => env?.stop());

    it('returns what was created without the defaulted fields with them filled in', async () => {
      const client = env.client.resource(sites.resource).inNamespace('default');
      const input: SiteInput = { metadata: { name: 'home' }, spec: { image: 'httpd:2.4', tls: {}, ports: [{ port: 80 }] } };
      // The client takes the input type and returns the stored one: what a creator may leave out is the server's to fill in.
      const stored: Site = await client.create(input);
      // @ts-expect-error the creator's type still requires what has no default (the image)
      const withoutImage: Parameters<typeof client.create>[0] = { metadata: { name: 'bad' }, spec: { tls: {}, ports: [] } };
      expect(withoutImage.metadata?.name).toBe('bad');
      expect(stored.spec).toEqual({ image: 'httpd:2.4', replicas: 2, tls: { enabled: false }, ports: [{ port: 80, protocol: 'TCP' }] });
    });
  });
});
