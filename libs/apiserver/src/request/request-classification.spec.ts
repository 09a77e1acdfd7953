import { isLongRunning, isMutating, metricScope, metricVerb } from './request-classification';
import { requestInfo } from './request-info';

describe('request classification', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=true', true],
    ['GET', '/api/v1/watch/pods', '', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', '', true],
    ['POST', '/api/v1/namespaces/ns/pods/p/exec', '', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/portforward', '', true],
    ['GET', '/api/v1/proxy/namespaces/ns/pods/p', '', true],
    ['GET', '/api/v1/namespaces/ns/pods', '', false],
    ['GET', '/api/v1/namespaces/ns/pods/p/status', '', false],
    ['GET', '/healthz', '', false],
    // a non-resource path named like a subresource is not long-running
    ['GET', '/log', '', false],
  ])('%s %s?%s long-running: %p', (method, path, query, expected) => {
    expect(isLongRunning(requestInfo(method, path, query))).toBe(expected);
  });

  it.each([
    ['GET', '/api/v1/pods', false],
    ['GET', '/api/v1/namespaces/ns/pods/p', false],
    ['GET', '/api/v1/pods?watch=1', false],
    ['POST', '/api/v1/namespaces/ns/pods', true],
    ['PUT', '/api/v1/namespaces/ns/pods/p', true],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', true],
    ['DELETE', '/api/v1/namespaces/ns/pods', true],
    ['GET', '/healthz', false],
    ['POST', '/some/non-resource', true],
  ])('%s %s mutating: %p', (method, pathAndQuery, expected) => {
    const [path, query] = pathAndQuery.split('?');
    expect(isMutating(requestInfo(method, path, query))).toBe(expected);
  });

  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', '', undefined, 'LIST', 'namespace'],
    ['GET', '/api/v1/pods', '', undefined, 'LIST', 'cluster'],
    ['GET', '/api/v1/pods', 'watch=true', undefined, 'WATCH', 'cluster'],
    ['GET', '/api/v1/namespaces/ns/pods/p', '', undefined, 'GET', 'resource'],
    ['POST', '/api/v1/namespaces/ns/pods', '', undefined, 'POST', 'resource'],
    ['PUT', '/api/v1/namespaces/ns/pods/p/status', '', undefined, 'PUT', 'resource'],
    ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/d', '', 'application/merge-patch+json', 'PATCH', 'resource'],
    ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/d', '', 'application/apply-patch+yaml; charset=utf-8', 'APPLY', 'resource'],
    ['DELETE', '/api/v1/namespaces/ns/pods', '', undefined, 'DELETECOLLECTION', 'namespace'],
    ['POST', '/api/v1/namespaces/ns/pods/p/exec', '', undefined, 'CONNECT', 'resource'],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', '', undefined, 'GET', 'resource'],
    ['GET', '/healthz', '', undefined, 'GET', ''],
    ['BREW', '/healthz', '', undefined, 'other', ''],
  ])('%s %s?%s (%s) reports verb %s, scope %s', (method, path, query, contentType, verb, scope) => {
    const info = requestInfo(method, path, query);
    expect(metricVerb(info, contentType)).toBe(verb);
    expect(metricScope(info)).toBe(scope);
  });
});
