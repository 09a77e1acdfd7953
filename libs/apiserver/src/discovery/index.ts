// Discovery: the documents Kubernetes clients read to learn what the server serves.
export { discoveryRoutes } from './discovery-routes';
export { ServedApis, applyRuntimeConfig, groupVersionEnabled } from './served-apis';
export type { RuntimeConfig } from './served-apis';
export {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  RESOURCE_VERBS,
  storageVersionHash,
  subresourcesOf,
} from './discovery-documents';
export type {
  AggregatedDiscoveryVersion,
  ApiGroup,
  ApiGroupDiscovery,
  ApiGroupDiscoveryList,
  ApiGroupList,
  ApiResource,
  ApiResourceDiscovery,
  ApiResourceList,
  ApiVersions,
} from './discovery-documents';
export { aggregatedContentType, negotiateDiscovery, parseAccept } from './discovery-negotiation';
export type { DiscoveryFormat } from './discovery-negotiation';
export { bodyEtag, writeJson } from './write-json';
