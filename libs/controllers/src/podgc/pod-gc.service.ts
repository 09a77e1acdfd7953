import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { BUILTIN_RESOURCES, Client } from '@svc/client';
import { consoleControllerLogger, Manager } from '@svc/runtime';
import { CONTROLLER_MANAGER_OPTIONS, type ControllerManagerOptions } from '../controller-manager-options';
import { PodGarbageCollector } from './pod-gc';

/** The pod garbage collector as a leader-elected runnable of the controller manager. */
@Injectable()
export class PodGcService implements OnModuleInit {
  readonly collector: PodGarbageCollector;

  constructor(
    private readonly manager: Manager,
    client: Client,
    @Inject(CONTROLLER_MANAGER_OPTIONS) options: ControllerManagerOptions,
  ) {
    this.collector = new PodGarbageCollector(
      client,
      manager.informerFor(BUILTIN_RESOURCES.pods).lister(),
      manager.informerFor(BUILTIN_RESOURCES.nodes).lister(),
      { terminatedPodThreshold: options.terminatedPodGcThreshold },
      consoleControllerLogger,
    );
  }

  onModuleInit(): void {
    this.manager.addRunnable({ name: 'podgc', run: (signal) => this.collector.run(signal) });
  }
}
