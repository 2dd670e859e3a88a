import type { ReactNode } from "react";
import { Link } from "react-router";
import styles from "./auth.module.css";

/** The frame of the pages before the log-in: the brand, one card, a note. */
export function AuthLayout(props: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <main className={styles.wrap}>
      <Link to="/entrar" className={styles.brand}>
        <svg className={styles.logo} viewBox="0 0 32 32" aria-hidden="true">
          <rect width="32" height="32" rx="7" fill="#0b6e4f" />
          <path d="M16 6l10 10-10 10L6 16z" fill="none" stroke="#fff" strokeWidth="3" />
        </svg>
        Pix Painel
      </Link>
      <div className={styles.card}>
        <h1>{props.title}</h1>
        {props.children}
        {props.footer ? <div className={styles.links}>{props.footer}</div> : null}
      </div>
      <p className={styles.note}>Painel do lojista: cobranças Pix, links de pagamento, saldo e saques.</p>
    </main>
  );
}
