import { CopyButton } from "../../components/CopyButton";
import { Card, Details, ui } from "../../components/ui";
import { formatDay, formatMoney } from "../../lib/format";
import { type AmountDue, type DueDateCharge, breakdownLines, termsInWords } from "./terms";
import styles from "./DueDateDetails.module.css";

/**
 * A charge with a due date on its transaction page (issue 38): its terms in words, the breakdown
 * of today's amount while it waits (of what was paid once paid), and its hosted page for the payer.
 */
export function DueDateDetails(props: { id: string; status: string; charge: DueDateCharge }) {
  const { charge, status } = props;
  const hosted = `${window.location.origin}/checkout/charges/${props.id}`;
  const due = charge.amountDue;
  return (
    <div className={ui.grid2}>
      <Card title="Vencimento e condições" id="vencimento">
        <Details items={termsInWords(charge)} />
        <p className={styles.send}>Página de pagamento para enviar ao pagador (mostra o valor do dia e o QR code):</p>
        <div className={ui.copyRow}>
          <code className={styles.url}>
            <a href={hosted} target="_blank" rel="noreferrer">
              {hosted}
            </a>
          </code>
          <CopyButton text={hosted} label="Copiar endereço" />
        </div>
      </Card>
      {due ? (
        <Card title={status === "PAID" ? "Composição do valor pago" : "Composição do valor de hoje"} id="composicao">
          <Breakdown due={due} paid={status === "PAID"} />
        </Card>
      ) : null}
    </div>
  );
}

function Breakdown(props: { due: AmountDue; paid: boolean }) {
  const { due } = props;
  return (
    <table className={styles.breakdown}>
      <caption>
        {props.paid ? "Pago em" : "Para pagamento em"} {formatDay(due.paymentDate)}
        {due.daysLate > 0 ? ` (${due.daysLate} ${due.daysLate === 1 ? "dia" : "dias"} após o vencimento)` : ""}
      </caption>
      <tbody>
        {breakdownLines(due).map((line) => (
          <tr key={line.label}>
            <th scope="row">{line.label}</th>
            <td className="number">
              {line.sign ? `${line.sign} ` : ""}
              {formatMoney(line.cents)}
            </td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">{props.paid ? "Total pago" : "Total de hoje"}</th>
          <td className="number">{formatMoney(due.finalCents)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
