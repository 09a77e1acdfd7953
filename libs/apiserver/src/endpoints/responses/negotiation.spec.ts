import { isStatusError } from '@svc/machinery';
import { negotiateOutput, wantsPretty } from './negotiation';

const get = { verb: 'get', protobuf: true };

describe('negotiateOutput', () => {
  it('answers JSON without an Accept header and for wildcards', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', 'application/json', 'application/json;stream=watch']) {
      expect(negotiateOutput(accept, get, false)).toMatchObject({ encoding: 'json', contentType: 'application/json' });
    }
  });

  it('serves Tables in the meta group the client names, as kubectl asks for them', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(negotiateOutput(kubectl, { verb: 'list', protobuf: true }, false)).toMatchObject({
      encoding: 'json',
      view: { as: 'Table', apiVersion: 'meta.k8s.io/v1' },
      contentType: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(negotiateOutput('application/json;as=Table;v=v1;g=meta.svc.io', get, false).view).toEqual({ as: 'Table', apiVersion: 'meta.svc.io/v1' });
  });

  it('falls back past views it cannot serve', () => {
    expect(negotiateOutput('application/json;as=Table;v=v9;g=meta.k8s.io,application/json', get, false).view).toBeUndefined();
    expect(negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', { verb: 'create', protobuf: true }, false).view).toBeUndefined();
    expect(negotiateOutput('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', { verb: 'list', protobuf: true }, false).view?.as).toBe(
      'PartialObjectMetadataList',
    );
  });

  it('serves the protobuf envelope for built-in kinds only, and Kubernetes protobuf to Kubernetes protobuf clients', () => {
    expect(negotiateOutput('application/vnd.svc.protobuf', get, false)).toMatchObject({
      encoding: 'protobuf',
      streamContentType: 'application/vnd.svc.protobuf;stream=watch',
    });
    expect(negotiateOutput('application/vnd.svc.protobuf,application/json', { verb: 'get', protobuf: false }, false).encoding).toBe('json');
    expect(negotiateOutput('application/vnd.kubernetes.protobuf,application/json', get, false).encoding).toBe('kubernetes-protobuf');
  });

  it("serves metadata views in Kubernetes protobuf, as client-go's metadata client asks for them, for any resource; never a Table", () => {
    const metadataClient =
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    expect(negotiateOutput(metadataClient, { verb: 'list', protobuf: false }, false)).toMatchObject({
      encoding: 'kubernetes-protobuf',
      view: { as: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' },
      contentType: 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    expect(
      negotiateOutput('application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', { verb: 'watch', protobuf: true }, false),
    ).toMatchObject({
      encoding: 'kubernetes-protobuf',
      streamContentType: 'application/vnd.kubernetes.protobuf;stream=watch',
    });
    const table = negotiateOutput('application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json', get, false);
    expect([table.encoding, table.view]).toEqual(['json', undefined]);
  });

  it('honours q values', () => {
    expect(negotiateOutput('application/json;q=0.5,application/yaml', get, false).encoding).toBe('yaml');
    expect(negotiateOutput('application/yaml;q=0,application/json', get, false).encoding).toBe('json');
  });

  it('answers 406 when nothing is supported', () => {
    try {
      negotiateOutput('text/html,image/png', get, false);
      throw new Error('expected 406');
    } catch (error) {
      expect(isStatusError(error) && error.status).toMatchObject({ code: 406, reason: 'NotAcceptable' });
    }
  });

  it('prints prettily for ?pretty and command-line clients', () => {
    expect(wantsPretty('', undefined)).toBe(true);
    expect(wantsPretty('true', undefined)).toBe(true);
    expect(wantsPretty('false', 'curl/8')).toBe(false);
    expect(wantsPretty(null, 'curl/8.0')).toBe(true);
    expect(wantsPretty(null, 'kubectl/v1.32')).toBe(false);
  });
});
