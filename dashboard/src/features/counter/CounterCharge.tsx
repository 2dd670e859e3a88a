import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api } from "../../api/client";
import { canCall } from "../../../../generated/dashboard-operations";
import { useCurrentSession } from "../../api/session";
import { CopyButton } from "../../components/CopyButton";
import { FormError } from "../../components/FormError";
import { QrCode } from "../../components/QrCode";
import { Alert, Details, ErrorMessage, Loading } from "../../components/ui";
import { formatDateTime, formatDocument, formatMoney } from "../../lib/format";
import { statusLabel } from "../../lib/labels";
import { useMode, useModePath } from "../../lib/useMode";
import type { Transaction } from "../../api/types";
import { useTransactionChanged } from "../transactions/queries";
import { counterQueries, waiting } from "./queries";
import styles from "./Counter.module.css";

/**
 * A counter's charge on the whole screen, for the payer to scan: its QR code while it waits (read
 * again every 2 seconds), then the receipt once paid, without a reload. Outside the app's frame
 * (no menu) so nothing else is on the screen the payer looks at.
 */
export function CounterCharge() {
  const { id = "" } = useParams();
  const mode = useMode();
  const to = useModePath();
  const charge = useQuery(counterQueries.live(mode, id));
  const t = charge.data?.transaction;
  return (
    <div className={`${styles.screen} ${mode === "test" ? styles.test : styles.production}`}>
      <header className={styles.bar}>
        <Link to={to("balcao")}>← Nova cobrança</Link>
        <span className={styles.modeTag}>{mode === "test" ? "MODO DE TESTE" : "PRODUÇÃO"}</span>
        <Link to={to(`transacoes/${id}`)}>Ver a transação</Link>
      </header>
      <main className={styles.stage} id="conteudo">
        {charge.isPending ? (
          <Loading label="Carregando a cobrança…" />
        ) : charge.isError ? (
          <ErrorMessage error={charge.error} retry={() => void charge.refetch()} />
        ) : t?.status === "PAID" ? (
          <Receipt charge={t} />
        ) : t && waiting(t.status) ? (
          <Waiting charge={t} />
        ) : t ? (
          <section className={styles.card} aria-labelledby="titulo-balcao">
            <h1 id="titulo-balcao">Cobrança {(statusLabel[t.status] ?? t.status).toLowerCase()}</h1>
            <Alert tone="warn">
              Esta cobrança de {formatMoney(t.amountCents)} não pode mais ser paga. Faça uma nova cobrança.
            </Alert>
            <Link className="button" to={to("balcao")}>
              Nova cobrança
            </Link>
          </section>
        ) : null}
      </main>
    </div>
  );
}

/** The QR code for the payer, as large as the screen allows, and the copy-and-paste code. */
function Waiting(props: { charge: Transaction }) {
  const t = props.charge;
  const { account } = useCurrentSession();
  const mode = useMode();
  const registering = t.pix.copyPaste === "";
  return (
    <section className={styles.card} aria-labelledby="titulo-balcao">
      <p className={styles.payee}>{account.name}</p>
      <h1 id="titulo-balcao" className={styles.title}>
        Pague com Pix
      </h1>
      <p className={styles.amount}>{formatMoney(t.amountCents)}</p>
      <p className={styles.description}>{t.description}</p>
      {registering ? (
        <Loading label="Registrando o Pix no banco…" />
      ) : (
        <QrCode
          className={styles.qr}
          text={t.pix.copyPaste}
          label={`QR code do Pix de ${formatMoney(t.amountCents)} para ${account.name}`}
        />
      )}
      <p className={styles.live} role="status" aria-live="polite">
        Aguardando o pagamento. Esta tela vira o comprovante quando o Pix chegar.
      </p>
      {registering ? null : (
        <details className={styles.copy}>
          <summary>Pix copia e cola</summary>
          <code>{t.pix.copyPaste}</code>
          <CopyButton text={t.pix.copyPaste} label="Copiar código Pix" />
        </details>
      )}
      {mode === "test" ? <SandboxPay charge={t} /> : null}
    </section>
  );
}

/** Test mode: pay it as a payer would, at once (the screen then turns as for a real payment). */
function SandboxPay(props: { charge: Transaction }) {
  const { user } = useCurrentSession();
  const mode = useMode();
  const pay = api.useMutation(
    "post",
    "/dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay",
    useTransactionChanged(mode, props.charge.id),
  );
  if (!canCall("dashboardSandboxPay", user.role)) return null;
  return (
    <div className={styles.sandbox}>
      <button
        type="button"
        className="secondary"
        disabled={pay.isPending}
        onClick={() => pay.mutate({ params: { path: { mode, id: props.charge.id } } })}
      >
        Simular pagamento (teste)
      </button>
      <FormError error={pay.error} />
    </div>
  );
}

/**
 * A payer's document as a receipt on a shared screen shows it: a CPF's middle digits only
 * (`***.982.247-**`, as the checkout's receipt), a company's CNPJ whole.
 */
const maskedDocument = (document: string) =>
  /^\d{11}$/.test(document) ? `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**` : formatDocument(document);

/** The receipt of the paid charge, as the checkout's: what, when, from whom, to whom (not the fee). */
function Receipt(props: { charge: Transaction }) {
  const t = props.charge;
  const { account } = useCurrentSession();
  const to = useModePath();
  return (
    <section className={`${styles.card} ${styles.receipt}`} aria-labelledby="titulo-balcao">
      <p className={styles.mark} aria-hidden="true">
        ✓
      </p>
      <h1 id="titulo-balcao" className={styles.title}>
        Pagamento recebido
      </h1>
      <p className={styles.amount}>{formatMoney(t.amountCents)}</p>
      <Details
        items={[
          ["Data e hora", `${formatDateTime(t.paidAt)} (Brasília)`],
          ["Descrição", t.description],
          ["Recebedor", account.name],
          ["Pagador", `${t.customer.name} — ${t.customer.documentType} ${maskedDocument(t.customer.document)}`],
          ["ID da transação", <code key="id">{t.id}</code>],
        ]}
      />
      <div className={styles.actions}>
        <Link className="button" to={to("balcao")}>
          Nova cobrança
        </Link>
        <Link className="button secondary" to={to(`transacoes/${t.id}`)}>
          Ver a transação
        </Link>
      </div>
    </section>
  );
}
