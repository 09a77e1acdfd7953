import { UNSUPPORTED_SHARED_FLAGS } from '../flag-set/unsupported-shared-flags';
import type { RefusedFlag } from '../flag-set/refused-flags';

/** Flags of the table (spec 2) whose effect this scheduler lacks: a value other than the default is refused. */
export const SCHEDULER_REFUSED_FLAGS: readonly RefusedFlag[] = [...UNSUPPORTED_SHARED_FLAGS];
