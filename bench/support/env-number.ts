/** A positive number from the environment variable `variable`, else `fallback`; refused when it is not one. */
export function positiveFromEnv(variable: string, fallback: number, { integer = true }: { integer?: boolean } = {}): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${variable} must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}
