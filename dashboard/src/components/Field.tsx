import { type InputHTMLAttributes, type ReactElement, type ReactNode, cloneElement, useId } from "react";
import { ui } from "./ui";

// A form control with its label, a hint, and the server's message for it (`errors[].path`),
// tied by aria-describedby and aria-invalid so a screen reader says it too.

interface FieldProps {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  /** The control: an input, select or textarea; it gets the id and the ARIA attributes. */
  children: ReactElement<{ id?: string; "aria-invalid"?: boolean; "aria-describedby"?: string }>;
}

/** @public A control of any kind with its label, hint and error. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={ui.field}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {hint ? (
        <p id={hintId} className={ui.hint}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className={ui.fieldError}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A text input in a Field. */
export function TextField(
  props: { label: ReactNode; error?: string | undefined; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>,
) {
  const { label, error, hint, ...input } = props;
  return (
    <Field label={label} error={error} hint={hint}>
      <input {...input} />
    </Field>
  );
}
