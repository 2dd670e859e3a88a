import { Link, useLocation } from "react-router";
import { useCurrentSession } from "../api/session";
import { Alert, Card, Page } from "../components/ui";
import { useMode, useModePath } from "../lib/useMode";

/** Início: the first steps, until the account has money to show. */
export function Home() {
  const { user, account } = useCurrentSession();
  const mode = useMode();
  const to = useModePath();
  const welcome = (useLocation().state as { welcome?: boolean } | null)?.welcome === true;
  const steps: { done: boolean; text: React.ReactNode }[] = [
    { done: user.emailConfirmed, text: <>Confirme seu e-mail pelo link que enviamos para {user.email}.</> },
    {
      done: user.twoFactorEnabled,
      text: (
        <>
          Ative a <Link to={to("configuracoes/seguranca")}>verificação em duas etapas</Link>: ela é pedida antes de
          saques e de mudanças sensíveis.
        </>
      ),
    },
    {
      done: account.verified,
      text: <>Peça a verificação da conta para operar em produção, com dinheiro real.</>,
    },
  ];
  return (
    <Page title={`Olá, ${user.name.split(" ")[0]}`} subtitle={mode === "test" ? "Modo de teste" : "Produção"}>
      {welcome ? (
        <Alert tone="ok">Conta criada. O modo de teste já funciona: nada aqui move dinheiro real.</Alert>
      ) : null}
      <Card title="Primeiros passos" id="passos">
        <ol>
          {steps.map((step, index) => (
            <li key={index}>
              {step.done ? <s>{step.text}</s> : step.text} {step.done ? <span>(feito)</span> : null}
            </li>
          ))}
        </ol>
      </Card>
    </Page>
  );
}
