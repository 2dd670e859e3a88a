import { useState } from "react";
import { type FieldProblem, fieldErrors } from "../api/errors";

// A form's fields and what the server said of them. The server stays the validator: the form keeps
// what is typed and shows the server's message under each field (`errors[].path`), the rest above
// the buttons (FormError).

/**
 * `const form = useApiForm({ email: "", password: "" }, logIn)`: `form.values`, `form.set("email")`
 * for an input's onChange, `form.errors.email`, `form.rest`. `shown` names the paths the form shows
 * when they differ from the fields' names (`amount` typed, `amountCents` sent).
 */
export function useApiForm<F extends Record<string, string | boolean>>(
  initial: F,
  mutation: { error: unknown },
  shown: readonly string[] = Object.keys(initial),
): {
  values: F;
  set: (field: keyof F) => (event: { target: { value: string } }) => void;
  setValue: <K extends keyof F>(field: K, value: F[K]) => void;
  reset: () => void;
  errors: Record<string, string | undefined>;
  rest: FieldProblem[];
} {
  const [values, setValues] = useState(initial);
  const setValue = <K extends keyof F>(field: K, value: F[K]) =>
    setValues((current) => ({ ...current, [field]: value }));
  const { byField, rest } = fieldErrors(mutation.error, shown);
  return {
    values,
    set: (field) => (event) => setValue(field, event.target.value as F[keyof F]),
    setValue,
    reset: () => setValues(initial),
    errors: byField,
    rest,
  };
}
