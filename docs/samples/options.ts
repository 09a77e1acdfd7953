/** The options' tour (libs/options/README.md), run by test/docs-samples.e2e-spec.ts. */
import {
  defineFlagSet,
  flag,
  flagTable,
  helpFlag,
  int,
  LOG_FLAGS,
  parseApiServerOptions,
  parseFlagSet,
  parseOrExit,
  string,
  versionFlag,
  type OptionsOf,
  type Rule,
} from '@svc/options';

export function parseServer(argv: string[]): string[] {
  // #region doc server
  const options = parseOrExit(parseApiServerOptions, argv); // argv: process.argv.slice(2)
  // options.securePort: number, options.storeCompactionInterval: number (ms), options.featureGates?: Record<string, boolean>
  // #endregion
  return [`${options.securePort}`, `${options.storeCompactionInterval}`];
}

export function parseGreeter(argv: string[]): unknown {
  // #region doc table
  const GREETER_FLAGS = flagTable({
    program: 'greeter',
    description: 'Greets, as often as asked.',
    groups: [
      { title: 'Generic', flags: [helpFlag('greeter'), versionFlag(), flag({ name: 'greeting', type: string, help: 'what to say', default: 'hello' })] },
      { title: 'Rate', flags: [flag({ name: 'times', type: int, help: 'how often', default: 1 }), flag({ name: 'max-times', type: int, help: 'at most' })] },
      { title: 'Logs', flags: [...LOG_FLAGS] }, // shared fragments live in sets/common-flags.ts
    ],
  });
  type GreeterOptions = OptionsOf<typeof GREETER_FLAGS>; // { greeting: string; times: number; maxTimes: number | undefined; ... }
  const RULES: Rule<GreeterOptions>[] = [
    (o) => (o.maxTimes !== undefined && o.times > o.maxTimes ? { flag: '--times', reason: 'must not exceed --max-times' } : undefined),
  ];
  const outcome = parseFlagSet(defineFlagSet(GREETER_FLAGS, RULES), argv); // { action: 'run', options } or help / version
  // #endregion
  return outcome;
}

export function sample(): unknown[] {
  return [parseServer(['--secure-port=16443']), parseGreeter(['--times=2', '--greeting', 'hi'])];
}
