import type { ControllerDescriptor } from '../controller-descriptor';
import { PodGarbageCollector, PodGcOptions } from './pod-garbage-collector';

export { PodGarbageCollector, PodGcOptions, NODE_QUARANTINE_MS, POD_GC_PERIOD_MS } from './pod-garbage-collector';

/** Deletes finished pods beyond `--terminated-pod-gc-threshold`, and pods of nodes that are gone. */
export const podGcController: ControllerDescriptor = {
  name: 'podgc',
  runnables: [PodGarbageCollector],
  options: (flags) => [PodGcOptions.fromFlags(flags)],
  concurrency: () => ({}),
};
