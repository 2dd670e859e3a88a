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
    ...(role === "owner" || role === "admin" ? [{ path: "conta", label: "Regras da conta" }] : []),
  ];
}

export function SettingsLayout() {
  const { user } = useCurrentSession();
  const to = useModePath();
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
