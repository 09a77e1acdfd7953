/**
 * Kubernetes' shuffle sharding (apiserver/pkg/util/shufflesharding): a flow's hash deals it a hand of
 * `handSize` distinct queues out of `deckSize`, so two flows rarely share all their queues and one
 * heavy flow fills only its own hand.
 */
export class Dealer {
  constructor(
    readonly deckSize: number,
    readonly handSize: number,
  ) {
    if (!Number.isInteger(deckSize) || !Number.isInteger(handSize) || deckSize <= 0 || handSize <= 0 || handSize > deckSize) {
      throw new Error(`cannot deal a hand of ${handSize} from a deck of ${deckSize}`);
    }
  }

  /**
   * The hand of `hash` (a non-negative integer below 2^53): each card is the hash's remainder in the
   * remaining deck, the hash divided down as it goes, the chosen cards skipped as in a drawn deck.
   */
  deal(hash: number): number[] {
    const hand: number[] = [];
    let rest = Math.floor(Math.abs(hash));
    for (let i = 0; i < this.handSize; i++) {
      const remaining = this.deckSize - i;
      let card = rest % remaining;
      rest = Math.floor(rest / remaining);
      // Skip the cards already drawn, in ascending order, as Kubernetes' Deal does.
      for (const taken of [...hand].sort((a, b) => a - b)) if (card >= taken) card++;
      hand.push(card);
    }
    return hand;
  }
}

/** A 53-bit FNV-1a hash of the strings, each ended by a zero byte (a flow's schema name and distinguisher). */
export function flowHash(...parts: string[]): number {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = (1n << 64n) - 1n;
  for (const part of parts) {
    for (const byte of Buffer.from(part, 'utf8')) hash = ((hash ^ BigInt(byte)) * prime) & mask;
    hash = (hash * prime) & mask;
  }
  return Number(hash >> 11n);
}
