// Instants and Brasília (America/Sao_Paulo) time on the server: the calendar day of an instant, and
// an instant as a person reads it (the checkout's pages, the CSV files). Instants are ISO 8601 UTC
// strings, as in `model.ts`. The dashboard app has its own, `dashboard/src/lib/format.ts`.

/** The instant `seconds` after `iso`, as ISO 8601 UTC. */
export const addSeconds = (iso: string, seconds: number): string =>
  new Date(new Date(iso).getTime() + seconds * 1000).toISOString();

/** Every field of an instant on a Brasília clock, two digits each (the year four), hours 00 to 23. */
const brasiliaClock = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Sao_Paulo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

interface BrasiliaParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

/** An instant (a Date or an ISO string) on a Brasília clock. */
function brasiliaParts(at: Date | string): BrasiliaParts {
  const parts: Record<string, string> = {};
  for (const { type, value } of brasiliaClock.formatToParts(typeof at === "string" ? new Date(at) : at)) {
    parts[type] = value;
  }
  const { year = "", month = "", day = "", hour = "", minute = "", second = "" } = parts;
  return { year, month, day, hour, minute, second };
}

/** The Brasília calendar date (`YYYY-MM-DD`) of an instant (a Date or an ISO string). */
export function brasiliaDate(at: Date | string): string {
  const { year, month, day } = brasiliaParts(at);
  return `${year}-${month}-${day}`;
}

/** The Brasília (America/Sao_Paulo) calendar day that contains `at`, as a UTC interval. */
export function brasiliaDay(at: Date): { start: Date; end: Date } {
  const startOfDay = (ymd: string): Date => {
    // Midnight in São Paulo: try the offsets Brazil has used (-03:00 now, -02:00 in old DST).
    for (const offset of ["-03:00", "-02:00"]) {
      const candidate = new Date(`${ymd}T00:00:00.000${offset}`);
      if (brasiliaParts(candidate).hour === "00") return candidate;
    }
    return new Date(`${ymd}T00:00:00.000-03:00`);
  };
  const start = startOfDay(brasiliaDate(at));
  return { start, end: startOfDay(brasiliaDate(new Date(start.getTime() + 26 * 3600_000))) };
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

/** "04/10/2026 às 12:30:00" in Brasília time, as a Brazilian payer reads it (the checkout's pages). */
export function formatBrasiliaDateTime(iso: string): string {
  const p = brasiliaParts(iso);
  return `${p.day}/${p.month}/${p.year} às ${p.hour}:${p.minute}:${p.second}`;
}

/** An instant as a pt-BR spreadsheet reads a date and time, in Brasília time: `24/11/2026 15:30`. */
export function spreadsheetDateTime(iso: string | null): string | null {
  if (iso === null) return null;
  const p = brasiliaParts(iso);
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
}

/** "23:59:59" (hours may exceed 24). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}
