import { Fragment, type ReactNode } from "react";
import { errorMessage } from "../api/errors";
import styles from "./ui.module.css";

// The pieces every screen is made of: the page and its title, cards, loading, empty and error
// states, alerts, badges and a list of details.

export function Page(props: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className={styles.page} aria-labelledby="page-title">
      <div className={styles.pageHead}>
        <div>
          <h1 id="page-title">{props.title}</h1>
          {props.subtitle ? <p className={styles.subtitle}>{props.subtitle}</p> : null}
        </div>
        {props.actions ? <div className={styles.actions}>{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}

/**
 * An id in a page's title (`Transação txn_…`): in a smaller monospaced face and never broken, so on
 * a phone it goes whole to the next line instead of splitting mid-id.
 */
export function TitleId(props: { id: string }) {
  return <span className={styles.titleId}>{props.id}</span>;
}

export function Card(props: { title?: string; children: ReactNode; id?: string }) {
  return (
    <section className={styles.card} aria-labelledby={props.title && props.id ? `${props.id}-title` : undefined}>
      {props.title ? <h2 id={props.id ? `${props.id}-title` : undefined}>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <div className={styles.loading} role="status" aria-live="polite">
      <span className={styles.spinner} aria-hidden="true" />
      {props.label ?? "Carregando…"}
    </div>
  );
}

/** @public What a list without items says: what it is, and what to do next. */
export function EmptyState(props: { title: string; children?: ReactNode }) {
  return (
    <div className={styles.empty}>
      <strong>{props.title}</strong>
      {props.children}
    </div>
  );
}

type Tone = "error" | "ok" | "warn" | "info";
const toneClass: Record<Tone, string | undefined> = {
  error: styles.alertError,
  ok: styles.alertOk,
  warn: styles.alertWarn,
  info: styles.alertInfo,
};

export function Alert(props: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <div className={`${styles.alert} ${toneClass[props.tone]}`} role={props.tone === "error" ? "alert" : "status"}>
      {props.title ? <strong>{props.title} </strong> : null}
      {props.children}
    </div>
  );
}

/** A failed request, in the server's words. */
export function ErrorMessage(props: { error: unknown; retry?: () => void }) {
  return (
    <Alert tone="error">
      <p>{errorMessage(props.error)}</p>
      {props.retry ? (
        <button type="button" className="secondary" onClick={props.retry}>
          Tentar de novo
        </button>
      ) : null}
    </Alert>
  );
}

const badgeTone = { ok: styles.badgeOk, warn: styles.badgeWarn, danger: styles.badgeDanger, neutral: "" };

export function Badge(props: { tone?: keyof typeof badgeTone; children: ReactNode }) {
  return <span className={`${styles.badge} ${badgeTone[props.tone ?? "neutral"]}`}>{props.children}</span>;
}

/** Label–value pairs. */
export function Details(props: { items: [string, ReactNode][] }) {
  return (
    <dl className={styles.details}>
      {props.items.map(([term, value]) => (
        <Fragment key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** A postal address, a line each (from `formatAddress`), as a person writes it on a label. */
export function AddressLines(props: { lines: string[] }) {
  return (
    <address className={styles.address}>
      {props.lines.map((line, i) => (
        <Fragment key={i}>
          {i > 0 ? <br /> : null}
          {line}
        </Fragment>
      ))}
    </address>
  );
}

export { styles as ui };
