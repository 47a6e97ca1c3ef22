import type { Random } from './random.ts';
import { FAMILY_NAMES, GIVEN_NAMES, HORSE_NAME_LEADS, HORSE_NAME_TAILS, STUD_NAME_WORDS, STUD_SUFFIXES } from './words.ts';

const ROMAN = ['II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

/** Hands out names that are unique within the book, like a registrar of racing names. */
export class NameBook {
  private readonly taken = new Set<string>();

  constructor(
    private readonly random: Random,
    private readonly compose: (random: Random) => string,
  ) {}

  next(): string {
    for (let attempt = 0; attempt < 24; attempt++) {
      const name = this.compose(this.random);
      if (!this.taken.has(name)) return this.take(name);
    }
    const base = this.compose(this.random);
    for (const numeral of ROMAN) {
      const name = `${base} ${numeral}`;
      if (!this.taken.has(name)) return this.take(name);
    }
    return this.take(`${base} ${this.taken.size}`);
  }

  private take(name: string): string {
    this.taken.add(name);
    return name;
  }
}

export function personName(random: Random): string {
  return `${random.pick(GIVEN_NAMES)} ${random.pick(FAMILY_NAMES)}`;
}

export function horseName(random: Random): string {
  const tail = random.pick(HORSE_NAME_TAILS);
  const shape = random.next();
  if (shape < 0.55) return `${random.pick(HORSE_NAME_LEADS)} ${tail}`;
  if (shape < 0.85) {
    const first = random.pick(HORSE_NAME_TAILS);
    return first === tail ? `${first} ${random.pick(HORSE_NAME_LEADS)}` : `${first} ${tail}`;
  }
  if (shape < 0.93) return `${random.pick(FAMILY_NAMES)}'s ${tail}`;
  return `${random.pick(HORSE_NAME_LEADS)} ${random.pick(HORSE_NAME_LEADS)} ${tail}`;
}

export function studName(random: Random): string {
  return `${random.pick(STUD_NAME_WORDS)} ${random.pick(STUD_SUFFIXES)}`;
}
