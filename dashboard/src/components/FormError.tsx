import { type FieldProblem, errorMessage, isApiError } from "../api/errors";
import { Alert } from "./ui";

/**
 * A form's refusal: the server's message, and the field errors no field of the form shows
 * (`rest` of `fieldErrors`). Nothing when there is no error, or when the step-up dialog handles it.
 */
export function FormError(props: { error: unknown; rest?: FieldProblem[] }) {
  if (!props.error || isApiError(props.error, "STEP_UP_REQUIRED")) return null;
  const rest = props.rest ?? [];
  return (
    <Alert tone="error">
      <p>{errorMessage(props.error)}</p>
      {rest.length > 0 ? (
        <ul>
          {rest.map((problem) => (
            <li key={`${problem.path}:${problem.message}`}>
              {problem.path ? <code>{problem.path}</code> : null} {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </Alert>
  );
}
