import { Link, useNavigate } from "react-router";
import { api } from "../../api/client";
import { useRememberSession } from "../../api/session";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { NewPasswordFields } from "../../components/NewPasswordFields";
import { Alert } from "../../components/ui";
import { useLinkToken } from "../../lib/linkToken";
import { modePath } from "../../lib/mode";
import { useApiForm } from "../../lib/useApiForm";
import { AuthLayout } from "./AuthLayout";

/** The page the invitation e-mail links to (`/painel/aceitar-convite?token=…`): the new member's name and password. */
export function AcceptInvitation() {
  const token = useLinkToken();
  const navigate = useNavigate();
  const remember = useRememberSession();
  const accept = api.useMutation("post", "/dashboard/v1/invitations/accept");
  const { values, set, errors, rest } = useApiForm({ name: "", password: "" }, accept);
  return (
    <AuthLayout title="Aceitar o convite" footer={<Link to="/entrar">Já tenho acesso: entrar</Link>}>
      {!token ? (
        <Alert tone="error">Este endereço não tem o código do convite. Abra o link do e-mail que você recebeu.</Alert>
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            accept.mutate(
              { body: { token, name: values.name.trim(), password: values.password } },
              {
                onSuccess: (started) => {
                  remember(started);
                  navigate(modePath("test"), { replace: true });
                },
              },
            );
          }}
        >
          <p>Você foi convidado para a equipe de uma conta no painel. Escolha seu nome e uma senha para entrar.</p>
          <TextField
            label="Seu nome"
            name="name"
            autoComplete="name"
            required
            value={values.name}
            onChange={set("name")}
            error={errors.name}
          />
          <NewPasswordFields
            label="Senha"
            name="password"
            hint=", que não seja uma senha comum."
            value={values.password}
            onChange={set("password")}
            error={errors.password}
          />
          <FormError error={accept.error} rest={rest} />
          <button type="submit" disabled={accept.isPending}>
            {accept.isPending ? "Entrando…" : "Aceitar e entrar"}
          </button>
        </form>
      )}
    </AuthLayout>
  );
}
