import { useQueryClient } from "@tanstack/react-query";
import { Link, NavLink, Navigate, Outlet, useLocation, useNavigate, useParams } from "react-router";
import { type OperationId, canCall } from "../../../generated/dashboard-operations";
import { api, forgetCsrfToken } from "../api/client";
import { SessionContext, roleLabel, sessionKey, useCurrentSession, useSession } from "../api/session";
import { modeFromSlug, modePath, switchModePath } from "../lib/mode";
import { useMode } from "../lib/useMode";
import styles from "./AppLayout.module.css";
import { StepUpProvider } from "./StepUp";
import { Alert, ErrorMessage, Loading, Page } from "./ui";

// The frame of every screen behind the log-in: the header (account, user, the test/production
// switch), the mode's bar, the sections, and the screen.

/** Behind it, a session; without one, the log-in page (which comes back here afterwards). */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading label="Abrindo o painel…" />;
  if (session.isError) return <ErrorMessage error={session.error} retry={() => void session.refetch()} />;
  if (!session.data) {
    const back = `${location.pathname}${location.search}`;
    return <Navigate to={`/entrar?voltar=${encodeURIComponent(back)}`} replace />;
  }
  return (
    <SessionContext.Provider value={session.data}>
      <Outlet />
    </SessionContext.Provider>
  );
}

/** An address whose first segment is no mode goes to test mode's home. */
export function RequireMode() {
  const { modo } = useParams();
  if (modeFromSlug(modo) === null) return <Navigate to={modePath("test")} replace />;
  return <Outlet />;
}

/** The sections of the menu, in the order a merchant uses them (one that makes something: for the roles that may). */
const sections: { path: string; label: string; end?: boolean; operation?: OperationId }[] = [
  { path: "", label: "Início", end: true },
  { path: "balcao", label: "Nova cobrança", operation: "createDashboardCharge" },
  { path: "transacoes", label: "Transações" },
  { path: "links", label: "Links de pagamento" },
  { path: "recorrencias", label: "Recorrências" },
  { path: "clientes", label: "Clientes" },
  { path: "saldo", label: "Saldo e saques" },
  { path: "extrato", label: "Extrato" },
  { path: "disputas", label: "Disputas" },
  { path: "desenvolvedores", label: "Desenvolvedores" },
  { path: "configuracoes", label: "Configurações" },
];

export function AppLayout() {
  const session = useCurrentSession();
  const mode = useMode();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const logOut = api.useMutation("delete", "/dashboard/v1/session");
  const { account, user } = session;
  const inSettings = location.pathname.split("/")[2] === "configuracoes";
  const locked = mode === "production" && !account.verified && !inSettings;
  const settingUp = session.twoFactorSetupRequired && !inSettings;
  return (
    <StepUpProvider>
      <a className={styles.skip} href="#conteudo">
        Pular para o conteúdo
      </a>
      <header className={styles.header}>
        <Link className={styles.brand} to={modePath(mode)}>
          <svg className={styles.logo} viewBox="0 0 32 32" aria-hidden="true">
            <rect width="32" height="32" rx="7" fill="#0b6e4f" />
            <path d="M16 6l10 10-10 10L6 16z" fill="none" stroke="#fff" strokeWidth="3" />
          </svg>
          Pix Painel
        </Link>
        <div className={styles.account}>
          <span className={styles.accountName}>{account.name}</span>
          <span className={styles.accountState}>
            {account.verified ? "Conta verificada" : "Conta não verificada: só modo de teste"}
          </span>
        </div>
        <nav aria-label="Modo">
          <div className={styles.switch}>
            <NavLink
              to={switchModePath(location.pathname, "test")}
              className={mode === "test" ? styles.testOn : undefined}
              aria-current={mode === "test" ? "page" : undefined}
            >
              Teste
            </NavLink>
            <NavLink
              to={switchModePath(location.pathname, "production")}
              className={mode === "production" ? styles.productionOn : undefined}
              aria-current={mode === "production" ? "page" : undefined}
              title={account.verified ? undefined : "Bloqueada até a conta ser verificada"}
            >
              Produção
              {account.verified ? null : (
                <>
                  <svg className={styles.lock} viewBox="0 0 16 16" aria-hidden="true">
                    <path d="M4 7V5a4 4 0 0 1 8 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 0 0-4 0v2z" fill="currentColor" />
                  </svg>
                  <span className="visually-hidden"> (bloqueada até a verificação da conta)</span>
                </>
              )}
            </NavLink>
          </div>
        </nav>
        <div className={styles.user}>
          <div className={styles.userName}>
            {user.name}
            <span>
              {user.email} · {roleLabel[user.role]}
            </span>
          </div>
          <button
            type="button"
            disabled={logOut.isPending}
            onClick={() =>
              logOut.mutate(
                {},
                {
                  onSettled: () => {
                    forgetCsrfToken();
                    client.clear();
                    client.setQueryData(sessionKey, null);
                    navigate("/entrar", { replace: true });
                  },
                },
              )
            }
          >
            Sair
          </button>
        </div>
      </header>
      <div className={`${styles.modeBar} ${mode === "test" ? styles.modeTest : styles.modeProduction}`} role="note">
        {mode === "test" ? (
          <>
            MODO DE TESTE <span>· dados simulados, nenhum dinheiro real se move</span>
          </>
        ) : (
          <>
            PRODUÇÃO <span>· dinheiro real</span>
          </>
        )}
      </div>
      <div className={styles.body}>
        <nav className={styles.nav} aria-label="Seções">
          <ul>
            {sections
              .filter((section) => !section.operation || canCall(section.operation, user.role))
              .map((section) => (
                <li key={section.path}>
                  <NavLink to={modePath(mode, section.path)} end={section.end}>
                    {section.label}
                  </NavLink>
                </li>
              ))}
          </ul>
        </nav>
        <main id="conteudo" className={styles.main} tabIndex={-1}>
          {!user.emailConfirmed ? (
            <Alert tone="info">
              Confirme seu e-mail: enviamos um link para <strong>{user.email}</strong>. Abra-o neste navegador.
            </Alert>
          ) : null}
          {locked ? <ProductionLocked /> : settingUp ? <TwoFactorRequired /> : <Outlet />}
        </main>
      </div>
    </StepUpProvider>
  );
}

function ProductionLocked() {
  return (
    <Page title="Produção bloqueada">
      <Alert tone="warn" title="Sua conta ainda não foi verificada.">
        <p>
          Em produção o dinheiro é real: chaves de produção, endpoints de webhook de produção e saques ficam bloqueados
          até a plataforma verificar a conta (razão social e CNPJ ou CPF).
        </p>
        <p>Enquanto isso, tudo funciona no modo de teste.</p>
      </Alert>
      <p>
        <Link className="button" to={modePath("test")}>
          Ir para o modo de teste
        </Link>{" "}
        <Link className="button secondary" to={modePath("production", "configuracoes/conta")}>
          Pedir a verificação da conta
        </Link>
      </p>
    </Page>
  );
}

function TwoFactorRequired() {
  const mode = useMode();
  return (
    <Page title="Ative a verificação em duas etapas">
      <Alert tone="warn">
        <p>O proprietário desta conta exige a verificação em duas etapas de todos os membros.</p>
        <p>Até você ativá-la, as outras telas ficam indisponíveis.</p>
      </Alert>
      <p>
        <Link className="button" to={modePath(mode, "configuracoes/seguranca")}>
          Ativar agora
        </Link>
      </p>
    </Page>
  );
}
