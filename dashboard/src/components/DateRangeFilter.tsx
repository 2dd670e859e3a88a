import { Field } from "./Field";

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
      <Field label="De">
        <input
          type="date"
          value={props.from ?? ""}
          onChange={(event) => props.onChange({ from: event.target.value })}
        />
      </Field>
      <Field label="Até">
        <input type="date" value={props.to ?? ""} onChange={(event) => props.onChange({ to: event.target.value })} />
      </Field>
    </>
  );
}
