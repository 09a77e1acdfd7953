import { exactNameFromFieldSelector, isValidPathSegmentName, type RequestInfo, requestInfo } from './request-info';

type Expected = Partial<RequestInfo>;

describe('requestInfo', () => {
  const cases: [string, string, string, Expected][] = [
    // method, path, query, expected
    [
      'GET',
      '/api/v1/namespaces',
      '',
      { verb: 'list', apiPrefix: 'api', group: '', version: 'v1', namespace: '', resource: 'namespaces', name: '', parts: ['namespaces'] },
    ],
    [
      'GET',
      '/api/v1/namespaces/other',
      '',
      { verb: 'get', namespace: 'other', resource: 'namespaces', name: 'other', subresource: '', parts: ['namespaces', 'other'] },
    ],
    ['PUT', '/api/v1/namespaces/other/finalize', '', { verb: 'update', namespace: 'other', resource: 'namespaces', name: 'other', subresource: 'finalize' }],
    ['PUT', '/api/v1/namespaces/other/status', '', { verb: 'update', namespace: 'other', resource: 'namespaces', name: 'other', subresource: 'status' }],
    ['GET', '/api/v1/namespaces/other/pods', '', { verb: 'list', namespace: 'other', resource: 'pods', name: '', parts: ['pods'] }],
    ['GET', '/api/v1/namespaces/other/pods/foo', '', { verb: 'get', namespace: 'other', resource: 'pods', name: 'foo' }],
    [
      'GET',
      '/api/v1/namespaces/other/pods/foo/status',
      '',
      { verb: 'get', namespace: 'other', resource: 'pods', name: 'foo', subresource: 'status', parts: ['pods', 'foo', 'status'] },
    ],
    ['PATCH', '/api/v1/namespaces/ns/pods/x/status', '', { verb: 'patch', namespace: 'ns', resource: 'pods', name: 'x', subresource: 'status' }],
    [
      'GET',
      '/api/v1/namespaces/other/pods/foo/log/extra/segments',
      '',
      { resource: 'pods', name: 'foo', subresource: 'log', parts: ['pods', 'foo', 'log', 'extra', 'segments'] },
    ],
    ['POST', '/api/v1/namespaces/other/pods', '', { verb: 'create', namespace: 'other', resource: 'pods', name: '' }],
    ['PUT', '/api/v1/namespaces/other/pods/foo', '', { verb: 'update', resource: 'pods', name: 'foo' }],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', '', { verb: 'delete', resource: 'pods', name: 'foo' }],
    ['DELETE', '/api/v1/namespaces/other/pods', '', { verb: 'deletecollection', resource: 'pods', name: '' }],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', '', { verb: 'get', name: 'foo' }],
    ['GET', '/api/v1/pods', '', { verb: 'list', namespace: '', resource: 'pods' }],
    ['GET', '/api/v1/nodes/n1', '', { verb: 'get', namespace: '', resource: 'nodes', name: 'n1' }],
    ['GET', '/apis/apps/v1/deployments', '', { verb: 'list', apiPrefix: 'apis', group: 'apps', version: 'v1', resource: 'deployments', namespace: '' }],
    [
      'GET',
      '/apis/apps/v1/namespaces/ns/deployments/web/scale',
      '',
      { group: 'apps', namespace: 'ns', resource: 'deployments', name: 'web', subresource: 'scale' },
    ],
    [
      'POST',
      '/apis/coordination.svc.io/v1/namespaces/svc-system/leases',
      '',
      { verb: 'create', group: 'coordination.svc.io', namespace: 'svc-system', resource: 'leases' },
    ],
    [
      'GET',
      '/apis/apiextensions.svc.io/v1/customresourcedefinitions/foos.example.com',
      '',
      { group: 'apiextensions.svc.io', resource: 'customresourcedefinitions', name: 'foos.example.com' },
    ],
    // watch as a parameter turns a list into a watch: Kubernetes reads anything but 0/false as true
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=true', { verb: 'watch', resource: 'pods' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=1', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=TRUE', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=false', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=False', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=0', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods/foo', 'watch=true', { verb: 'get', name: 'foo' }],
    ['DELETE', '/api/v1/namespaces/ns/pods', 'watch=true', { verb: 'deletecollection' }],
    // the legacy watch prefix
    ['GET', '/api/v1/watch/pods', '', { verb: 'watch', resource: 'pods', namespace: '', parts: ['pods'] }],
    ['GET', '/api/v1/watch/namespaces/ns/pods', '', { verb: 'watch', namespace: 'ns', resource: 'pods' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods/foo', '', { verb: 'watch', namespace: 'ns', resource: 'pods', name: 'foo' }],
    ['GET', '/apis/apps/v1/watch/namespaces/ns/deployments', '', { verb: 'watch', group: 'apps', namespace: 'ns', resource: 'deployments' }],
    // proxy keeps everything after the name for the target
    [
      'GET',
      '/api/v1/proxy/namespaces/ns/pods/foo/some/path',
      '',
      { verb: 'proxy', resource: 'pods', name: 'foo', subresource: '', parts: ['pods', 'foo', 'some', 'path'] },
    ],
    // a field selector pinning metadata.name names the object of a list
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3Dfoo', { verb: 'list', name: 'foo' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3D%3Dfoo', { verb: 'list', name: 'foo' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=spec.nodeName%3Dn1%2Cmetadata.name%3Dfoo', { verb: 'list', name: 'foo' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%21%3Dfoo', { verb: 'list', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=1&fieldSelector=metadata.name%3Dfoo', { verb: 'watch', name: 'foo' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3D..', { verb: 'list', name: '' }],
    // unknown methods keep the resource fields but no verb
    ['OPTIONS', '/api/v1/namespaces/ns/pods', '', { isResourceRequest: true, verb: '', resource: 'pods' }],
    // trailing slashes do not count as segments
    ['GET', '/api/v1/namespaces/ns/pods/', '', { verb: 'list', resource: 'pods' }],
  ];

  it.each(cases)('%s %s?%s', (method, path, query, expected) => {
    const info = requestInfo(method, path, query);
    expect(info.isResourceRequest).toBe(expected.isResourceRequest ?? true);
    expect(info).toMatchObject(expected);
    expect(info.path).toBe(path);
  });

  it.each([
    ['GET', '/'],
    ['GET', '/healthz'],
    ['GET', '/readyz/shutdown'],
    ['GET', '/metrics'],
    ['GET', '/version'],
    ['GET', '/api'],
    ['GET', '/api/v1'],
    ['GET', '/apis'],
    ['GET', '/apis/apps'],
    ['GET', '/apis/apps/v1'],
    ['GET', '/openapi/v2'],
    ['GET', '/other/v1/pods'],
    ['POST', '/api/v1/watch'],
  ])('%s %s is not a resource request', (method, path) => {
    const info = requestInfo(method, path);
    expect(info).toMatchObject({
      isResourceRequest: false,
      verb: method.toLowerCase(),
      apiPrefix: '',
      group: '',
      version: '',
      resource: '',
      name: '',
      parts: [],
    });
  });

  it('accepts the query as URLSearchParams, a string with ? or an Express-style object', () => {
    expect(requestInfo('GET', '/api/v1/pods', new URLSearchParams('watch=true')).verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/pods', '?watch=true').verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/pods', { watch: 'true' }).verb).toBe('watch');
    expect(requestInfo('GET', '/api/v1/pods', { watch: ['false', 'true'] }).verb).toBe('list');
    expect(requestInfo('GET', '/api/v1/pods', { watch: undefined }).verb).toBe('list');
  });
});

describe('exactNameFromFieldSelector', () => {
  it.each([
    ['metadata.name=foo', 'foo'],
    ['metadata.name==foo', 'foo'],
    [' metadata.name = foo ', 'foo'],
    ['a=b,metadata.name=foo', 'foo'],
    ['metadata.name=a\\,b', 'a,b'],
    ['metadata.name!=foo', undefined],
    ['metadata.namespace=foo', undefined],
    ['', undefined],
    [null, undefined],
  ])('%p -> %p', (selector, name) => {
    expect(exactNameFromFieldSelector(selector)).toBe(name);
  });
});

describe('isValidPathSegmentName', () => {
  it.each([
    ['foo', true],
    ['foo.bar-1', true],
    ['.', false],
    ['..', false],
    ['a/b', false],
    ['a%2Fb', false],
    ['', false],
  ])('%p -> %p', (name, valid) => {
    expect(isValidPathSegmentName(name)).toBe(valid);
  });
});

describe('requestInfo on encoded paths', () => {
  it('decodes each segment on its own', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/a%2Db/pods/x%20y')).toMatchObject({ namespace: 'a-b', name: 'x y', resource: 'pods' });
    expect(requestInfo('GET', '/api/v1/namespaces/ns/pods/a%2Fb/status')).toMatchObject({ name: 'a/b', subresource: 'status' });
    expect(requestInfo('GET', '/api/v1/namespaces/ns/pods/%E0%A4%A')).toMatchObject({ name: '%E0%A4%A' });
  });
});
