import { useEffect, useRef } from "react";
import { NavLink, Outlet, useLocation } from "react-router";
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
  const tabs = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // On a phone the tabs scroll sideways: the current one is brought into view.
  useEffect(() => {
    tabs.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [pathname]);
  return (
    <Page title="Configurações">
      <nav aria-label="Configurações" ref={tabs}>
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
