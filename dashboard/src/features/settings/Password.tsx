import { useState } from "react";
import { api } from "../../api/client";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { NewPasswordFields } from "../../components/NewPasswordFields";
import { Alert, Card, ui } from "../../components/ui";
import { useApiForm } from "../../lib/useApiForm";

export function Password() {
  const change = api.useMutation("post", "/dashboard/v1/me/password");
  const form = useApiForm({ currentPassword: "", newPassword: "", repeat: "" }, change);
  const [mismatch, setMismatch] = useState(false);
  const { values, set, errors } = form;
  return (
    <Card title="Trocar a senha" id="senha">
      {change.isSuccess ? <Alert tone="ok">Senha trocada. Suas outras sessões foram encerradas.</Alert> : null}
      <form
        className={ui.form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (values.newPassword !== values.repeat) return setMismatch(true);
          setMismatch(false);
          change.mutate(
            { body: { currentPassword: values.currentPassword, newPassword: values.newPassword } },
            { onSuccess: form.reset },
          );
        }}
      >
        <TextField
          label="Senha atual"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          value={values.currentPassword}
          onChange={set("currentPassword")}
          error={errors.currentPassword}
        />
        <NewPasswordFields
          label="Nova senha"
          name="newPassword"
          hint=", que não seja uma senha comum. As suas outras sessões serão encerradas."
          value={values.newPassword}
          onChange={set("newPassword")}
          error={errors.newPassword}
          repeat={{ value: values.repeat, onChange: set("repeat"), mismatch }}
        />
        <FormError error={change.error} rest={form.rest} />
        <div className={ui.formActions}>
          <button type="submit" disabled={change.isPending}>
            {change.isPending ? "Salvando…" : "Trocar a senha"}
          </button>
        </div>
      </form>
    </Card>
  );
}
