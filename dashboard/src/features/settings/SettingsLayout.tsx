import { NavLink, Outlet } from "react-router";
import { useCurrentSession } from "../../api/session";
import { Page } from "../../components/ui";
import { useModePath } from "../../lib/useMode";
import styles from "./settings.module.css";

/** The tabs of Settings; each is its own address (/painel/teste/configuracoes/seguranca). */
function settingsTabs(role: string): { path: string; label: string }[] {
  return [
    { path: "perfil", label: "Perfil" },
    { path: "senha", label: "Senha" },
    { path: "seguranca", label: "Verificação em duas etapas" },
    { path: "sessoes", label: "Sessões" },
    { path: "notificacoes", label: "Notificações" },
    { path: "equipe", label: "Equipe" },
    { path: "conta", label: "Conta e verificação" },
    ...(role === "owner" || role === "admin"
      ? [
          { path: "regras", label: "Regras da conta" },
          { path: "auditoria", label: "Auditoria" },
        ]
      : []),
  ];
}

export function SettingsLayout() {
  const { user } = useCurrentSession();
  const to = useModePath();
  // The tabs wrap into rows (settings.module.css): all in view at any width, none cut.
  return (
    <Page title="Configurações">
      <nav aria-label="Configurações">
        <ul className={styles.tabs}>
          {settingsTabs(user.role).map((tab) => (
            <li key={tab.path}>
              <NavLink to={to(`configuracoes/${tab.path}`)}>{tab.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet />
    </Page>
  );
}
