import type { BuiltInController } from '../built-in-controller';
import { PodGcService } from './pod-gc.service';

export { PodGarbageCollector, NODE_QUARANTINE_MS, POD_GC_PERIOD_MS, type PodGcOptions } from './pod-gc';
export { PodGcService } from './pod-gc.service';

/** Deletes finished pods beyond `--terminated-pod-gc-threshold`, and pods of nodes that are gone. */
export const podGcController: BuiltInController = {
  name: 'podgc',
  providers: [PodGcService],
  concurrency: () => ({}),
};
