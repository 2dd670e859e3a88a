import type { ReactNode } from "react";
import { passwordLength } from "../../../generated/rules";
import { TextField } from "./Field";

type OnChange = (event: { target: { value: string } }) => void;

/**
 * The new password of sign-up, password reset, an invitation and the password settings, and its
 * repetition where the form asks for one: the length hint from the document (NewPassword's
 * minLength and maxLength, generated/rules.ts), the server's message under the field.
 */
export function NewPasswordFields(props: {
  label: string;
  name: string;
  value: string;
  onChange: OnChange;
  error: string | undefined;
  /** What the hint says after the length ("; uma frase longa…", ", que não seja uma senha comum."). */
  hint: ReactNode;
  /** The "Repita a nova senha" field, and whether it differs. */
  repeat?: { value: string; onChange: OnChange; mismatch: boolean };
}) {
  return (
    <>
      <TextField
        label={props.label}
        name={props.name}
        type="password"
        autoComplete="new-password"
        required
        minLength={passwordLength.min}
        hint={
          <>
            De {passwordLength.min} a {passwordLength.max} caracteres{props.hint}
          </>
        }
        value={props.value}
        onChange={props.onChange}
        error={props.error}
      />
      {props.repeat ? (
        <TextField
          label="Repita a nova senha"
          name="repeat"
          type="password"
          autoComplete="new-password"
          required
          value={props.repeat.value}
          onChange={props.repeat.onChange}
          error={props.repeat.mismatch ? "as duas senhas não são iguais" : undefined}
        />
      ) : null}
    </>
  );
}
