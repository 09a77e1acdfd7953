import { configMapDefinition, deploymentDefinition, namespaceDefinition, nodeDefinition } from '@svc/api';
import { collectionPath, objectPath, resourceInfo } from './resource-info';

describe('resource paths', () => {
  it('puts the core group under /api/v1 and named groups under /apis/<group>/<version>', () => {
    expect(collectionPath(resourceInfo(configMapDefinition), 'default')).toBe('/api/v1/namespaces/default/configmaps');
    expect(objectPath(resourceInfo(deploymentDefinition), 'web', 'prod', 'scale')).toBe('/apis/apps/v1/namespaces/prod/deployments/web/scale');
  });

  it('lists a namespaced resource across namespaces without a namespace', () => {
    expect(collectionPath(resourceInfo(deploymentDefinition))).toBe('/apis/apps/v1/deployments');
  });

  it('ignores a namespace for cluster-scoped resources', () => {
    expect(objectPath(resourceInfo(nodeDefinition), 'n1', 'default')).toBe('/api/v1/nodes/n1');
    expect(objectPath(resourceInfo(namespaceDefinition), 'kube', undefined, 'status')).toBe('/api/v1/namespaces/kube/status');
  });

  it('escapes path segments', () => {
    expect(objectPath({ group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true }, 'a b', 'x')).toBe(
      '/apis/example.com/v1/namespaces/x/widgets/a%20b',
    );
  });
});
