// OpenAPI v3: the index and one document per served group version, from the kinds' schemas.
export { openApiRoutes } from './openapi-routes';
export { OpenApiDocuments } from './openapi-documents';
export type { RenderedDocument, RenderedV2 } from './openapi-documents';
