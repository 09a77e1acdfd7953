import { Module, type DynamicModule } from '@nestjs/common';
import type { SchedulerOptions } from '@svc/options';
import { RuntimeModule, type RuntimeModuleOptions } from '@svc/runtime';
import { SCHEDULER_OPTIONS } from './scheduler-options';
import { SchedulerService } from './scheduler.service';

/** The process's container: the framework's manager and the scheduler it runs. */
@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerOptions, runtime: RuntimeModuleOptions): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [RuntimeModule.forRoot(runtime)],
      providers: [{ provide: SCHEDULER_OPTIONS, useValue: options }, SchedulerService],
    };
  }
}
