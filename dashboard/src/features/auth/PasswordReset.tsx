import { useState } from "react";
import { Link } from "react-router";
import { api } from "../../api/client";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { NewPasswordFields } from "../../components/NewPasswordFields";
import { Alert } from "../../components/ui";
import { useLinkToken } from "../../lib/linkToken";
import { useApiForm } from "../../lib/useApiForm";
import { AuthLayout } from "./AuthLayout";

/** "Esqueci minha senha": the reset link goes by e-mail. */
export function RequestPasswordReset() {
  const request = api.useMutation("post", "/dashboard/v1/password-resets");
  const { values, set, errors, rest } = useApiForm({ email: "" }, request);
  const { email } = values;
  return (
    <AuthLayout title="Redefinir a senha" footer={<Link to="/entrar">Voltar para entrar</Link>}>
      {request.isSuccess ? (
        <Alert tone="ok">
          Se houver um usuário com o e-mail <strong>{email}</strong>, enviamos a ele um link para escolher uma nova
          senha (vale por 1 hora). Confira também a caixa de spam.
        </Alert>
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            request.mutate({ body: { email: email.trim() } });
          }}
        >
          <p>Informe o e-mail com que você entra no painel; enviaremos um link para escolher uma nova senha.</p>
          <TextField
            label="E-mail"
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={set("email")}
            error={errors.email}
          />
          <FormError error={request.error} rest={rest} />
          <button type="submit" disabled={request.isPending}>
            {request.isPending ? "Enviando…" : "Enviar link"}
          </button>
        </form>
      )}
    </AuthLayout>
  );
}

/** The page the reset e-mail links to (`/painel/redefinir-senha?token=…`). */
export function CompletePasswordReset() {
  const token = useLinkToken();
  const [mismatch, setMismatch] = useState(false);
  const complete = api.useMutation("post", "/dashboard/v1/password-resets/complete");
  const { values, set, errors, rest } = useApiForm({ password: "", repeat: "" }, complete, ["password", "token"]);
  const { password, repeat } = values;
  return (
    <AuthLayout title="Escolha uma nova senha" footer={<Link to="/entrar">Voltar para entrar</Link>}>
      {!token ? (
        <Alert tone="error">
          Este endereço não tem o código do e-mail. <Link to="/recuperar-senha">Peça um novo link</Link>.
        </Alert>
      ) : complete.isSuccess ? (
        <>
          <Alert tone="ok">Senha redefinida. Todas as sessões abertas foram encerradas.</Alert>
          <p>
            <Link className="button" to="/entrar">
              Entrar com a nova senha
            </Link>
          </p>
        </>
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (password !== repeat) return setMismatch(true);
            setMismatch(false);
            complete.mutate({ body: { token, password } });
          }}
        >
          <NewPasswordFields
            label="Nova senha"
            name="password"
            hint=", que não seja uma senha comum."
            value={password}
            onChange={set("password")}
            error={errors.password}
            repeat={{ value: repeat, onChange: set("repeat"), mismatch }}
          />
          <FormError error={complete.error} rest={rest} />
          {errors.token ? <Alert tone="error">{errors.token}</Alert> : null}
          <button type="submit" disabled={complete.isPending}>
            {complete.isPending ? "Salvando…" : "Salvar nova senha"}
          </button>
        </form>
      )}
    </AuthLayout>
  );
}
