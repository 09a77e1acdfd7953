import { type DynamicModule, Module } from '@nestjs/common';
import type { Scheme } from '@svc/api';
import { DiscoveryController } from './discovery.controller';
import { SERVED_APIS } from './discovery.tokens';
import { ServedApis, type RuntimeConfig } from './served-apis';

export interface DiscoveryModuleOptions {
  /** The shared scheme; CRD kinds registered into it at run time show up at once. */
  scheme: Scheme;
  /** `--runtime-config` as parsed. */
  runtimeConfig?: RuntimeConfig;
  /** One ServedApis for discovery and OpenAPI; built from `scheme` and `runtimeConfig` when absent. */
  servedApis?: ServedApis;
}

/** Serves `/api`, `/api/<version>`, `/apis`, `/apis/<group>` and `/apis/<group>/<version>`. */
@Module({})
export class DiscoveryModule {
  static forRoot(options: DiscoveryModuleOptions): DynamicModule {
    const apis = options.servedApis ?? new ServedApis(options.scheme, options.runtimeConfig);
    return {
      module: DiscoveryModule,
      controllers: [DiscoveryController],
      providers: [{ provide: SERVED_APIS, useValue: apis }],
      exports: [SERVED_APIS],
    };
  }
}
