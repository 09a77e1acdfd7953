/** A command-line problem; the message is the one line shown to the user. */
export class FlagError extends Error {
  override readonly name = 'FlagError';

  /** `invalid argument "<value>" for "<flag>" flag: <reason>`, pflag's wording. */
  static invalidArgument(flag: string, value: string, reason: string): FlagError {
    return new FlagError(`invalid argument ${JSON.stringify(value)} for ${JSON.stringify(flag)} flag: ${reason}`);
  }
}
