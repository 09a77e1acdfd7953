import type { ControllerManagerOptions } from '@svc/options';
import { servingPair as processServingPair, type TlsPair } from '@svc/runtime';

export type { TlsPair };

/** Like Kubernetes' controller manager: the given pair, else a self-signed one kept in `--cert-dir`, or in memory without it. */
export function servingPair(o: ControllerManagerOptions): Promise<TlsPair> {
  return processServingPair(o, 'svc-controller-manager');
}
