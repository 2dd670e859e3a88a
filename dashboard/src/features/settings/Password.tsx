import { useState } from "react";
import { api } from "../../api/client";
import { fieldErrors } from "../../api/errors";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { Alert, Card, ui } from "../../components/ui";

export function Password() {
  const change = api.useMutation("post", "/dashboard/v1/me/password");
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const { byField, rest } = fieldErrors(change.error, ["currentPassword", "newPassword"]);
  return (
    <Card title="Trocar a senha" id="senha">
      {change.isSuccess ? <Alert tone="ok">Senha trocada. Suas outras sessões foram encerradas.</Alert> : null}
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (next !== repeat) return setMismatch(true);
          setMismatch(false);
          change.mutate(
            { body: { currentPassword: current, newPassword: next } },
            {
              onSuccess: () => {
                setCurrent("");
                setNext("");
                setRepeat("");
              },
            },
          );
        }}
      >
        <TextField
          label="Senha atual"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(event) => setCurrent(event.target.value)}
          error={byField.currentPassword}
        />
        <TextField
          label="Nova senha"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          hint="De 12 a 128 caracteres, que não seja uma senha comum. As suas outras sessões serão encerradas."
          value={next}
          onChange={(event) => setNext(event.target.value)}
          error={byField.newPassword}
        />
        <TextField
          label="Repita a nova senha"
          name="repeat"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(event) => setRepeat(event.target.value)}
          error={mismatch ? "as duas senhas não são iguais" : undefined}
        />
        <FormError error={change.error} rest={rest} />
        <div className={ui.formActions}>
          <button type="submit" disabled={change.isPending}>
            {change.isPending ? "Salvando…" : "Trocar a senha"}
          </button>
        </div>
      </form>
    </Card>
  );
}
