// OpenAPI v3: the index and one document per served group version, from the kinds' schemas.
export { OpenApiModule } from './openapi.module';
export type { OpenApiModuleOptions } from './openapi.module';
export { OpenApiController, OpenApiV2Controller } from './openapi.controller';
export { OpenApiDocuments } from './openapi-documents';
export type { RenderedDocument, RenderedV2 } from './openapi-documents';
