import { useState } from "react";
import { Link, Navigate, useNavigate, useSearchParams } from "react-router";
import { api } from "../../api/client";
import { fieldErrors, isApiError } from "../../api/errors";
import { takeSessionEndedReason, useRememberSession, useSession } from "../../api/session";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { Alert } from "../../components/ui";
import { safeReturnPath } from "../../lib/mode";
import { AuthLayout } from "./AuthLayout";

export function LogIn() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const remember = useRememberSession();
  const session = useSession();
  const [ended] = useState(takeSessionEndedReason);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [askCode, setAskCode] = useState(false);
  const logIn = api.useMutation("post", "/dashboard/v1/session");
  const back = safeReturnPath(search.get("voltar"));
  if (session.data && !logIn.isPending && !logIn.isSuccess) return <Navigate to={back} replace />;
  const needsCode = askCode || isApiError(logIn.error, "TWO_FACTOR_REQUIRED");
  const { byField, rest } = fieldErrors(logIn.error, ["email", "password", "code"]);
  return (
    <AuthLayout
      title={needsCode ? "Verificação em duas etapas" : "Entrar no painel"}
      footer={
        <>
          <Link to="/recuperar-senha">Esqueci minha senha</Link>
          <span>
            Ainda não tem conta? <Link to="/cadastro">Cadastre-se</Link>
          </span>
        </>
      }
    >
      {ended ? <Alert tone="warn">{ended}</Alert> : null}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const body = { email: email.trim(), password, ...(needsCode ? { code: code.trim() } : {}) };
          logIn.mutate(
            { body },
            {
              onSuccess: (started) => {
                remember(started);
                navigate(back, { replace: true });
              },
              onError: (error) => {
                if (isApiError(error, "TWO_FACTOR_REQUIRED")) setAskCode(true);
              },
            },
          );
        }}
      >
        <div hidden={needsCode}>
          <TextField
            label="E-mail"
            name="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={byField.email}
          />
          <TextField
            label="Senha"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={byField.password}
          />
        </div>
        {needsCode ? (
          <>
            <p>Digite o código de 6 dígitos do seu aplicativo autenticador, ou um código de recuperação.</p>
            <TextField
              label="Código"
              name="code"
              autoComplete="one-time-code"
              autoFocus
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
              error={byField.code}
            />
          </>
        ) : null}
        {isApiError(logIn.error, "TWO_FACTOR_REQUIRED") && !code ? null : <FormError error={logIn.error} rest={rest} />}
        <button type="submit" disabled={logIn.isPending}>
          {logIn.isPending ? "Entrando…" : needsCode ? "Confirmar" : "Entrar"}
        </button>
      </form>
    </AuthLayout>
  );
}
