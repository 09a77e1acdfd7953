import { type DynamicModule, Module } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import { SERVED_APIS } from '../discovery/discovery.tokens';
import { ServedApis, type RuntimeConfig } from '../discovery/served-apis';
import type { ApiServerServingConfig } from '../config';
import { SERVING_CONFIG } from '../serving-core.module';
import { OpenApiDocuments } from './openapi-documents';
import { OpenApiController, OpenApiV2Controller } from './openapi.controller';

export interface OpenApiModuleOptions {
  scheme: Scheme;
  runtimeConfig?: RuntimeConfig;
  /** The ServedApis discovery uses, so that both always agree; built from the others when absent. */
  servedApis?: ServedApis;
}

/** Serves the OpenAPI v3 index, one v3 document per served group version and the Swagger 2.0 `/openapi/v2`, generated from the kinds' schemas. */
@Module({})
export class OpenApiModule {
  static forRoot(options: OpenApiModuleOptions): DynamicModule {
    const apis = options.servedApis ?? new ServedApis(options.scheme, options.runtimeConfig);
    return {
      module: OpenApiModule,
      controllers: [OpenApiController, OpenApiV2Controller],
      providers: [
        { provide: SERVED_APIS, useValue: apis },
        {
          provide: OpenApiDocuments,
          useFactory: (config: ApiServerServingConfig) => new OpenApiDocuments(apis, { title: 'svc', version: config.version.gitVersion }),
          inject: [SERVING_CONFIG],
        },
      ],
    };
  }
}
