import { type DynamicModule, Module } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import { SERVED_APIS } from '../discovery/discovery.tokens';
import { ServedApis, type RuntimeConfig } from '../discovery/served-apis';
import { OpenApiController } from './openapi.controller';

export interface OpenApiModuleOptions {
  scheme: Scheme;
  runtimeConfig?: RuntimeConfig;
  /** The ServedApis discovery uses, so that both always agree; built from the others when absent. */
  servedApis?: ServedApis;
}

/** Serves the OpenAPI v3 index and one document per served group version, generated from the kinds' schemas. */
@Module({})
export class OpenApiModule {
  static forRoot(options: OpenApiModuleOptions): DynamicModule {
    const apis = options.servedApis ?? new ServedApis(options.scheme, options.runtimeConfig);
    return { module: OpenApiModule, controllers: [OpenApiController], providers: [{ provide: SERVED_APIS, useValue: apis }] };
  }
}
