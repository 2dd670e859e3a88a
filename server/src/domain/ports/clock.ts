/** Where the domain reads the time. Never `Date.now()` inside the domain. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told: tests, and `PIX_MANUAL_CLOCK=1`. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = "2026-10-04T15:30:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): Date {
    this.current += Math.round(seconds * 1000);
    return this.now();
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
