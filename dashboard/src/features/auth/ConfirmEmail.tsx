import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { api } from "../../api/client";
import { sessionKey } from "../../api/session";
import { FormError } from "../../components/FormError";
import { Alert, Loading } from "../../components/ui";
import { useLinkToken } from "../../lib/linkToken";
import { modePath } from "../../lib/mode";
import { AuthLayout } from "./AuthLayout";

/** The page the confirmation e-mail links to (`/painel/confirmar-email?token=…`): confirms at once. */
export function ConfirmEmail() {
  const token = useLinkToken();
  const confirm = api.useMutation("post", "/dashboard/v1/email-confirmations");
  const client = useQueryClient();
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current || !token) return;
    sent.current = true;
    confirm.mutate({ body: { token } }, { onSuccess: () => void client.invalidateQueries({ queryKey: sessionKey }) });
  }, [token, confirm, client]);
  return (
    <AuthLayout title="Confirmação de e-mail">
      {!token ? (
        <Alert tone="error">Este endereço não tem o código do e-mail. Abra o link da mensagem que enviamos.</Alert>
      ) : confirm.isSuccess ? (
        <>
          <Alert tone="ok">E-mail confirmado. Obrigado!</Alert>
          <p>
            <Link className="button" to={modePath("test")}>
              Ir para o painel
            </Link>
          </p>
        </>
      ) : confirm.isError ? (
        <>
          <FormError error={confirm.error} />
          <p>
            <Link to="/entrar">Entrar no painel</Link>
          </p>
        </>
      ) : (
        <Loading label="Confirmando seu e-mail…" />
      )}
    </AuthLayout>
  );
}
