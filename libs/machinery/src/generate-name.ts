import { randomInt } from 'node:crypto';

/** Characters of generated suffixes: no vowels (no words) and no look-alikes (0/o, 1/l, 3/e). */
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const GENERATED_SUFFIX_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
/** Longest base kept from `generateName`, so base plus suffix fits a 63-character label. */
export const MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - GENERATED_SUFFIX_LENGTH;

/** Returns an integer in [0, max). */
export type RandomIndex = (max: number) => number;

/** `generateName` plus 5 random characters, the base cut to 58 characters first. */
export function generateName(base: string, random: RandomIndex = randomInt): string {
  const kept = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += GENERATED_NAME_ALPHABET[random(GENERATED_NAME_ALPHABET.length)];
  return kept + suffix;
}
