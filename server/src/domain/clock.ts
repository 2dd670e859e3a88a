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

/** The Brasília (America/Sao_Paulo) calendar day that contains `at`, as a UTC interval. */
export function brasiliaDay(at: Date): { start: Date; end: Date } {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/Sao_Paulo",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
  const startOfDay = (ymd: string): Date => {
    // Midnight in São Paulo: try the offsets Brazil has used (-03:00 now, -02:00 in old DST).
    for (const offset of ["-03:00", "-02:00"]) {
      const candidate = new Date(`${ymd}T00:00:00.000${offset}`);
      const back = new Intl.DateTimeFormat("en-CA", {
        timeZone: "America/Sao_Paulo",
        hour: "2-digit",
        hourCycle: "h23",
      })
        .format(candidate)
        .padStart(2, "0");
      if (back === "00") return candidate;
    }
    return new Date(`${ymd}T00:00:00.000-03:00`);
  };
  const start = startOfDay(parts);
  const next = new Date(start.getTime() + 26 * 3600_000);
  const nextYmd = new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/Sao_Paulo",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(next);
  return { start, end: startOfDay(nextYmd) };
}

export const iso = (d: Date): string => d.toISOString();
