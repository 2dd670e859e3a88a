// How the dashboard writes money, dates and documents: Brazilian Portuguese, Brasília time.

const brl = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });
const integer = new Intl.NumberFormat("pt-BR");

/** `R$ 1.234,56` (a no-break space after `R$`, so it never wraps apart) from integer cents. */
export function formatMoney(cents: number): string {
  return brl.format(cents / 100);
}

const brlShort = new Intl.NumberFormat("pt-BR", {
  style: "currency",
  currency: "BRL",
  notation: "compact",
  minimumFractionDigits: 0,
  maximumFractionDigits: 1,
});

/** `R$ 500 mil`, `R$ 1,2 mi` from integer cents: a chart axis's label, short enough for a phone. */
export function formatMoneyShort(cents: number): string {
  return brlShort.format(cents / 100);
}

/** `1.234` */
export function formatCount(value: number): string {
  return integer.format(value);
}

/** `1 pagamento`, `2 pagamentos`, `1.234 dias`: a count with its noun, singular for one. */
export function formatPlural(value: number, one: string, many: string): string {
  return `${formatCount(value)} ${value === 1 ? one : many}`;
}

/** `(11) 98765-4321` or `(11) 3456-7890` from digits (with or without +55); anything else as given. */
export function formatPhone(phone: string | null | undefined): string {
  if (!phone) return "—";
  let d = phone.replace(/\D/g, "");
  if ((d.length === 12 || d.length === 13) && d.startsWith("55")) d = d.slice(2);
  if (d.length === 11) return `(${d.slice(0, 2)}) ${d.slice(2, 7)}-${d.slice(7)}`;
  if (d.length === 10) return `(${d.slice(0, 2)}) ${d.slice(2, 6)}-${d.slice(6)}`;
  return phone;
}

/** The time zone of every date the dashboard shows. */
const brasilia = "America/Sao_Paulo";

const dateTimeParts = new Intl.DateTimeFormat("pt-BR", {
  timeZone: brasilia,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

const dateOnly = new Intl.DateTimeFormat("pt-BR", {
  timeZone: brasilia,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
});

function parts(formatter: Intl.DateTimeFormat, at: Date): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of formatter.formatToParts(at)) out[part.type] = part.value;
  return out;
}

/** `24/11/2026 15:30` in Brasília time, from an ISO instant; `—` for null. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "—";
  const p = parts(dateTimeParts, at);
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
}

/** `24/11/2026 15:30:07` in Brasília time, from an ISO instant (a request's time); `—` for null. */
export function formatDateTimeSeconds(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "—";
  const p = parts(dateTimeParts, at);
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}:${p.second}`;
}

/** `24/11/2026`, the Brasília day of an ISO instant. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "—";
  return dateOnly.format(at);
}

/** `04/11/2030` from a calendar day `2030-11-04` (a due date, a cycle's date: no time, no zone); `—` for null. */
export function formatDay(day: string | null | undefined): string {
  const parts = day ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(day) : null;
  return parts ? `${parts[3]}/${parts[2]}/${parts[1]}` : "—";
}

/** `2026-11-24`: the Brasília calendar day of an instant. */
export function brasiliaDay(at: Date): string {
  const p = parts(dateOnly, at);
  return `${p.year}-${p.month}-${p.day}`;
}

/**
 * The instant a Brasília calendar day (`2026-11-24`) starts, as ISO UTC. Brazil has kept UTC−3
 * all year since 2019 (no daylight saving time).
 */
export function brasiliaDayStart(day: string): string {
  return new Date(`${day}T00:00:00-03:00`).toISOString();
}

/** `123.456.789-09` or `12.345.678/0001-90` from digits; anything else as given. */
export function formatDocument(document: string | null | undefined): string {
  if (!document) return "—";
  const d = document.replace(/\D/g, "");
  if (d.length === 11) return `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
  if (d.length === 14) return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
  return document;
}

/** A postal address as the lines a label has; null when it has no field. */
export function formatAddress(
  address: {
    zipCode: string | null;
    street: string | null;
    number: string | null;
    complement: string | null;
    district: string | null;
    city: string | null;
    state: string | null;
  } | null,
): string[] | null {
  if (!address) return null;
  const join = (parts: (string | null)[], by: string) => parts.filter((p) => p && p.trim()).join(by);
  const zip = address.zipCode?.replace(/\D/g, "");
  const lines = [
    join([join([address.street, address.number], ", "), address.complement], " — "),
    join([address.district, join([address.city, address.state], " - ")], ", "),
    zip && zip.length === 8 ? `CEP ${zip.slice(0, 5)}-${zip.slice(5)}` : (address.zipCode ?? ""),
  ].filter(Boolean);
  return lines.length > 0 ? lines : null;
}

/** Reais typed by a person (`1.234,56`, `1234.5`, `R$ 10`) as integer cents; null when not a positive amount. */
export function parseMoneyInput(text: string): number | null {
  let t = text.replace(/R\$|\s/g, "");
  if (t === "") return null;
  if (t.includes(",")) t = t.replace(/\./g, "").replace(",", ".");
  else if (/^\d{1,3}(\.\d{3})+$/.test(t)) t = t.replace(/\./g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return null;
  const cents = Math.round(Number(t) * 100);
  return Number.isSafeInteger(cents) && cents > 0 ? cents : null;
}

/** A readable name for a User-Agent: the browser and the system. */
export function describeUserAgent(agent: string | null): string {
  if (!agent) return "Desconhecido";
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /OPR\//.test(agent)
      ? "Opera"
      : /Firefox\//.test(agent)
        ? "Firefox"
        : /Chrome\//.test(agent)
          ? "Chrome"
          : /Safari\//.test(agent)
            ? "Safari"
            : /curl\//.test(agent)
              ? "curl"
              : null;
  const system = /Android/.test(agent)
    ? "Android"
    : /iPhone|iPad/.test(agent)
      ? "iOS"
      : /Windows/.test(agent)
        ? "Windows"
        : /Mac OS X/.test(agent)
          ? "macOS"
          : /Linux/.test(agent)
            ? "Linux"
            : null;
  if (browser && system) return `${browser} no ${system}`;
  return browser ?? system ?? agent.slice(0, 60);
}
