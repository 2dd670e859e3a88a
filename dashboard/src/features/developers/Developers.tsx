import { NavLink, Outlet } from "react-router";
import { Page } from "../../components/ui";
import { useModePath } from "../../lib/useMode";
import styles from "../settings/settings.module.css";

/** Developers: API keys, webhook endpoints, events, request logs; each tab its own address. */
export function Developers() {
  const to = useModePath();
  return (
    <Page title="Desenvolvedores">
      <nav aria-label="Desenvolvedores">
        <ul className={styles.tabs}>
          <li>
            <NavLink to={to("desenvolvedores/chaves")}>Chaves de API</NavLink>
          </li>
          <li>
            <NavLink to={to("desenvolvedores/webhooks")}>Webhooks</NavLink>
          </li>
          <li>
            <NavLink to={to("desenvolvedores/eventos")}>Eventos</NavLink>
          </li>
          <li>
            <NavLink to={to("desenvolvedores/registros")}>Registros</NavLink>
          </li>
        </ul>
      </nav>
      <Outlet />
    </Page>
  );
}
