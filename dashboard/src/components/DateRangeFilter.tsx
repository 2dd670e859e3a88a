import { useState } from "react";
import { Field } from "./Field";

// Date fields that read and write `dd/mm/aaaa` whatever the browser's own date control would show
// (a headless Chromium shows `11/01/2026` for 1 November even in pt-BR): a text field with the
// Brazilian order, handing the filter an ISO day (`2026-11-01`) once a whole valid date is typed.

/** `01/11/2026` from `2026-11-01`; "" for none. */
const shown = (day: string | undefined) =>
  day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? day.split("-").reverse().join("/") : "";

/** `2026-11-01` from `01/11/2026` (or `1/11/2026`, `01112026`), null when not a real calendar day. */
export function parseDay(text: string): string | null {
  const digits = /^(\d{1,2})\/?(\d{1,2})\/?(\d{4})$/.exec(text.trim());
  if (!digits) return null;
  const [day, month, year] = [Number(digits[1]), Number(digits[2]), Number(digits[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The digits typed as `dd/mm/aaaa`, the slashes put in as a person types. */
function masked(text: string): string {
  const d = text.replace(/\D/g, "").slice(0, 8);
  return [d.slice(0, 2), d.slice(2, 4), d.slice(4)].filter(Boolean).join("/");
}

/**
 * A date field of a form, typed `dd/mm/aaaa` with the slashes put in as a person types; the form
 * keeps the text (`parseDay` reads it) and shows its own or the server's message.
 */
export function DateField(props: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  hint?: string | undefined;
  error?: string | undefined;
}) {
  return (
    <Field label={props.label} hint={props.hint ?? "dd/mm/aaaa"} error={props.error}>
      <input
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder="dd/mm/aaaa"
        maxLength={10}
        value={props.value}
        onChange={(event) => props.onChange(masked(event.target.value))}
      />
    </Field>
  );
}

/** One day of a filter, typed `dd/mm/aaaa`; `onChange` gets the ISO day, or "" when cleared. */
function DayField(props: { label: string; value: string | undefined; onChange: (day: string) => void }) {
  const [text, setText] = useState(shown(props.value));
  const [wrong, setWrong] = useState(false);
  // A new value from the address (a reload, "Este mês", "Limpar filtros") replaces what was typed.
  const [from, setFrom] = useState(props.value);
  if (from !== props.value) {
    setFrom(props.value);
    setText(shown(props.value));
    setWrong(false);
  }
  return (
    <Field label={props.label} hint="dd/mm/aaaa" error={wrong ? "digite uma data como 01/11/2026" : undefined}>
      <input
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder="dd/mm/aaaa"
        maxLength={10}
        value={text}
        onChange={(event) => {
          const next = masked(event.target.value);
          setText(next);
          const day = parseDay(next);
          if (next === "") {
            setWrong(false);
            props.onChange("");
          } else if (day) {
            setWrong(false);
            if (day !== props.value) props.onChange(day);
          }
        }}
        onBlur={() => setWrong(text !== "" && parseDay(text) === null)}
      />
    </Field>
  );
}

/**
 * The "De" and "Até" days of a filter row (Brasília days, `YYYY-MM-DD`; empty: no bound), each change
 * handed to `onChange` with the field's new value ("" when cleared).
 */
export function DateRangeFilter(props: {
  from: string | undefined;
  to: string | undefined;
  onChange: (change: { from: string } | { to: string }) => void;
}) {
  return (
    <>
      <DayField label="De" value={props.from} onChange={(from) => props.onChange({ from })} />
      <DayField label="Até" value={props.to} onChange={(to) => props.onChange({ to })} />
    </>
  );
}
