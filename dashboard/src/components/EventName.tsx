import { Fragment } from "react";

/**
 * An event kind (`recurring_charge.cancelled`) as code that may break after its dot when a narrow
 * column needs it, instead of mid-word (`cancelle` / `d`).
 */
export function EventName(props: { kind: string }) {
  const parts = props.kind.split(".");
  const last = parts.length - 1;
  return (
    <code>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < last ? (
            <>
              .<wbr />
            </>
          ) : null}
        </Fragment>
      ))}
    </code>
  );
}
