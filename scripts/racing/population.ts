import type { Day } from './calendar.ts';
import type { Horse } from './horses.ts';
import type { Random } from './random.ts';

/** How well a horse suits a race: 0 is a proper fit, larger is a poorer one, Infinity never. */
export type Suitability = (horse: Horse) => number;

/**
 * The horses of one region: those ready to race, and those resting until a given day. Taking a
 * horse removes it, so it cannot be entered twice on a day; the caller rests it again afterwards.
 */
export class RegionPopulation {
  private readonly ready: Horse[] = [];
  private readonly resting: Horse[] = [];

  get size(): number {
    return this.ready.length + this.resting.length;
  }

  rest(horse: Horse, untilDay: Day): void {
    horse.readyDay = untilDay;
    this.resting.push(horse);
    this.siftUp(this.resting.length - 1);
  }

  /** Brings back every horse whose rest ends by `day`. */
  advanceTo(day: Day): void {
    while (this.resting.length > 0 && (this.resting[0]?.readyDay ?? Infinity) <= day) {
      this.ready.push(this.popResting());
    }
  }

  /**
   * Probes random ready horses; takes the first proper fit, else the best acceptable one.
   * Probed horses that `hasRetired` are dropped from the population on the way.
   */
  take(suitability: Suitability, probes: number, random: Random, hasRetired: (horse: Horse) => boolean): Horse | undefined {
    let bestIndex = -1;
    let bestScore = Infinity;
    for (let probe = 0; probe < probes && this.ready.length > 0; probe++) {
      const index = Math.floor(random.next() * this.ready.length);
      const horse = this.ready[index];
      if (!horse) continue;
      if (index !== bestIndex && hasRetired(horse)) {
        const movedFrom = this.ready.length - 1;
        this.removeReady(index);
        if (bestIndex === movedFrom) bestIndex = index;
        continue;
      }
      const score = suitability(horse);
      if (score < bestScore) {
        bestScore = score;
        bestIndex = index;
        if (score === 0) break;
      }
    }
    return bestIndex < 0 ? undefined : this.removeReady(bestIndex);
  }

  /** Takes the horse whose rest ends soonest, if that is before `day`: a spelled horse trialling. */
  takeReturning(day: Day): Horse | undefined {
    const first = this.resting[0];
    return first && first.readyDay <= day ? this.popResting() : undefined;
  }

  private removeReady(index: number): Horse | undefined {
    const horse = this.ready[index];
    const last = this.ready.pop();
    if (last && index < this.ready.length) this.ready[index] = last;
    return horse;
  }

  private popResting(): Horse {
    const heap = this.resting;
    const top = heap[0];
    const last = heap.pop();
    if (!top || !last) throw new Error('no resting horse');
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private swap(i: number, j: number): void {
    const heap = this.resting;
    const a = heap[i];
    const b = heap[j];
    if (!a || !b) return;
    heap[i] = b;
    heap[j] = a;
  }

  private earlier(i: number, j: number): boolean {
    const a = this.resting[i];
    const b = this.resting[j];
    return !!a && !!b && (a.readyDay < b.readyDay || (a.readyDay === b.readyDay && a.id < b.id));
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.earlier(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const left = parent * 2 + 1;
      let first = parent;
      if (this.earlier(left, first)) first = left;
      if (this.earlier(left + 1, first)) first = left + 1;
      if (first === parent) return;
      this.swap(first, parent);
      parent = first;
    }
  }
}
