import { unimplementedAdmissionPlugins } from '@svc/apiserver';
import { API_SERVER_FLAGS, API_SERVER_REFUSED_FLAGS, refusedFlagProblem, type ApiServerFlags } from '@svc/options';

/**
 * The first flag given a value this API server would ignore, as the one line to print; undefined when
 * none. An admission plugin enabled by name must do something here; disabling one that does nothing is
 * harmless and accepted.
 */
export function unsupportedFlagProblem(flags: ApiServerFlags): string | undefined {
  const plugins = unimplementedAdmissionPlugins(flags.enableAdmissionPlugins ?? []);
  if (plugins.length > 0) {
    return `--enable-admission-plugins names ${plugins.join(', ')}, which this API server does not implement yet`;
  }
  return refusedFlagProblem(API_SERVER_FLAGS, API_SERVER_REFUSED_FLAGS, flags);
}
