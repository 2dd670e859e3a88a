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

const brasiliaDateFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Sao_Paulo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/** The Brasília calendar date (`YYYY-MM-DD`) of an instant (a Date or an ISO string). */
export function brasiliaDate(at: Date | string): string {
  return brasiliaDateFormat.format(typeof at === "string" ? new Date(at) : at);
}

/** One Brasília calendar day: its date and its UTC interval [start, end). */
export interface BrasiliaDay {
  date: string;
  start: Date;
  end: Date;
}

/** The `count` Brasília days that end with the one containing `at`, oldest first. */
export function lastBrasiliaDays(at: Date, count: number): BrasiliaDay[] {
  const days: BrasiliaDay[] = [];
  let day = brasiliaDay(at);
  for (let i = 0; i < count; i++) {
    days.unshift({ date: brasiliaDate(day.start), ...day });
    day = brasiliaDay(new Date(day.start.getTime() - 1));
  }
  return days;
}
