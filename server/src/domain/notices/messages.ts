import type { Account, Schemas } from "../core/model.js";
import { formatBRL } from "../core/money.js";
import { formatBrasiliaDateTime } from "../core/time.js";
import { formatDocument } from "../../pix/documents.js";

// The e-mail notices' words (issue 37 §2), in Portuguese. A test-mode notice says so in its subject
// ("[TESTE]") and its first line. No secret is ever written (no token, key, or full document).

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

type Transaction = Schemas["Transaction"];
type Withdrawal = Schemas["Withdrawal"];

const testBanner = "MODO DE TESTE — nenhum dinheiro real foi movimentado.";

/** The subject and the text framed for the mode; the text ends with the reason it was sent. */
function framed(livemode: boolean, subject: string, lines: readonly string[], why: string): Omit<Mail, "to"> {
  const body = [...(livemode ? [] : [testBanner, ""]), ...lines, "", "—", why];
  return { subject: livemode ? subject : `[TESTE] ${subject}`, text: `${body.join("\n")}\n` };
}

const modeSlug = (livemode: boolean) => (livemode ? "producao" : "teste");
const when = (iso: string) => `${formatBrasiliaDateTime(iso)} (horário de Brasília)`;

/** Where a member changes its notices. */
const settingsOf = (baseUrl: string, livemode: boolean) =>
  `Para escolher seus avisos, abra Configurações → Notificações: ${baseUrl}/painel/${modeSlug(livemode)}/configuracoes/notificacoes`;

/** A payment received, to a member who chose to hear of each. */
export function paymentReceived(baseUrl: string, account: Account, t: Transaction, name: string) {
  return framed(
    t.livemode,
    `Pagamento recebido: ${formatBRL(t.amountCents)}`,
    [
      `Olá, ${name}.`,
      "",
      `${account.name} recebeu um pagamento Pix.`,
      "",
      `Valor: ${formatBRL(t.amountCents)}`,
      `Tarifa: ${formatBRL(t.feeCents)}`,
      `Valor líquido: ${formatBRL(t.netAmountCents)}`,
      `Descrição: ${t.description}`,
      `Pagador: ${t.customer.name}`,
      `Data e hora: ${when(t.paidAt ?? t.updatedAt)}`,
      `Transação: ${t.id}`,
      "",
      `Ver no painel: ${baseUrl}/painel/${modeSlug(t.livemode)}/transacoes/${t.id}`,
    ],
    `Você recebe este aviso a cada pagamento. ${settingsOf(baseUrl, t.livemode)}`,
  );
}

/** The day's payments in one e-mail (a member who chose the daily summary). */
export function dailySummary(
  baseUrl: string,
  account: Account,
  name: string,
  date: string,
  modes: ReadonlyArray<{ livemode: boolean; payments: readonly Transaction[]; more: boolean }>,
) {
  const [year, month, day] = date.split("-");
  const shownDate = `${day}/${month}/${year}`;
  const production = modes.some((m) => m.livemode && m.payments.length > 0);
  const lines = [`Olá, ${name}.`, "", `Os pagamentos Pix recebidos por ${account.name} em ${shownDate}:`];
  for (const mode of modes) {
    if (mode.payments.length === 0) continue;
    const total = mode.payments.reduce((sum, t) => sum + t.amountCents, 0);
    const count = mode.payments.length;
    lines.push(
      "",
      mode.livemode ? "PRODUÇÃO" : "TESTE (nenhum dinheiro real)",
      `${count === 1 ? "1 pagamento" : `${count}${mode.more ? " ou mais" : ""} pagamentos`}, ${formatBRL(total)} no total`,
      ...mode.payments.map(
        (t) =>
          `- ${formatBrasiliaDateTime(t.paidAt ?? t.updatedAt).slice(-8, -3)}  ${formatBRL(t.amountCents)}  ${t.description} (${t.id})`,
      ),
    );
    if (mode.more) lines.push(`(a lista segue no painel: ${baseUrl}/painel/${modeSlug(mode.livemode)}/transacoes)`);
  }
  const subject = `Resumo do dia ${shownDate}: pagamentos recebidos`;
  const why = `Você recebe este resumo uma vez por dia. ${settingsOf(baseUrl, production)}`;
  return { subject: production ? subject : `[TESTE] ${subject}`, text: `${[...lines, "", "—", why].join("\n")}\n` };
}

const withdrawalOutcome: Record<string, { subject: string; line: string }> = {
  "withdrawal.paid": { subject: "Saque pago", line: "O saque foi pago." },
  "withdrawal.partially_paid": {
    subject: "Saque pago em parte",
    line: "O saque foi pago em parte; o que não foi pago voltou para o saldo.",
  },
  "withdrawal.failed": { subject: "Saque não realizado", line: "O saque falhou; o valor voltou para o saldo." },
};

/** A withdrawal's end (paid, partly paid, failed), to a member who chose withdrawals. */
export function withdrawalEnded(baseUrl: string, account: Account, type: string, w: Withdrawal, name: string) {
  const outcome = withdrawalOutcome[type] ?? withdrawalOutcome["withdrawal.failed"]!;
  return framed(
    w.livemode,
    `${outcome.subject}: ${formatBRL(w.amountCents)}`,
    [
      `Olá, ${name}.`,
      "",
      `${outcome.line} (${account.name})`,
      "",
      `Valor do saque: ${formatBRL(w.amountCents)}`,
      `Pago ao destino: ${formatBRL(w.paidAmountCents)}`,
      ...(w.returnedAmountCents > 0 ? [`Devolvido ao saldo: ${formatBRL(w.returnedAmountCents)}`] : []),
      `Chave Pix de destino: ${w.pixKey}`,
      ...(w.failureReason ? [`Motivo: ${w.failureReason}`] : []),
      `Saque: ${w.id}`,
      "",
      `Ver no painel: ${baseUrl}/painel/${modeSlug(w.livemode)}/saldo`,
    ],
    `Você recebe este aviso quando um saque termina. ${settingsOf(baseUrl, w.livemode)}`,
  );
}

/** A payer contested a payment (MED), to a member who chose disputes. */
export function disputeOpened(baseUrl: string, account: Account, t: Transaction, name: string) {
  const amount = t.dispute?.amountCents ?? t.amountCents;
  return framed(
    t.livemode,
    `Contestação aberta: ${formatBRL(amount)}`,
    [
      `Olá, ${name}.`,
      "",
      `Um pagador contestou um pagamento recebido por ${account.name} (MED). O valor contestado fica bloqueado no saldo até a decisão.`,
      "",
      `Valor contestado: ${formatBRL(amount)}`,
      `Pagamento: ${formatBRL(t.amountCents)} — ${t.description}`,
      `Pagador: ${t.customer.name}`,
      `Transação: ${t.id}`,
      "",
      `Ver no painel: ${baseUrl}/painel/${modeSlug(t.livemode)}/disputas`,
    ],
    `Você recebe este aviso quando um pagamento é contestado. ${settingsOf(baseUrl, t.livemode)}`,
  );
}

/** A log-in from a device none of the user's sessions used before. */
export function newDevice(
  baseUrl: string,
  account: Account,
  name: string,
  detail: { at: string; ip: string | null; userAgent: string | null },
) {
  const lines = [
    `Olá, ${name}.`,
    "",
    `Houve uma entrada no painel de ${account.name} com o seu usuário a partir de um dispositivo novo.`,
    "",
    `Data e hora: ${when(detail.at)}`,
    `Navegador: ${detail.userAgent ?? "não informado"}`,
    `Endereço IP: ${detail.ip ?? "não informado"}`,
    "",
    "Foi você? Então nada a fazer.",
    `Não foi você? Troque sua senha agora e encerre as sessões que não reconhece: ${baseUrl}/painel/producao/configuracoes/sessoes`,
  ];
  return {
    subject: "Entrada de um dispositivo novo no painel",
    text: `${[...lines, "", "—", `Você recebe este aviso por segurança. ${settingsOf(baseUrl, true)}`].join("\n")}\n`,
  };
}

/** A document as a receipt shows it: a CNPJ whole, a CPF with its ends hidden; null if malformed. */
function shownDocument(type: "CPF" | "CNPJ", document: string): string | null {
  try {
    const shown = formatDocument(document, type);
    return `${type} ${type === "CPF" ? `***${shown.slice(3, -2)}**` : shown}`;
  } catch {
    return null;
  }
}

/** The payer's receipt, when the hosted checkout collected its e-mail address. */
export function payerReceipt(account: Account, t: Transaction, endToEndId: string | null) {
  const merchantDocument =
    account.document && account.documentType ? shownDocument(account.documentType, account.document) : null;
  const payerDocument = shownDocument(t.customer.documentType, t.customer.document);
  const firstName = t.customer.name.split(" ")[0] ?? "";
  return framed(
    t.livemode,
    `Comprovante do seu Pix para ${account.name}: ${formatBRL(t.amountCents)}`,
    [
      `${firstName ? `Olá, ${firstName}. ` : ""}Seu pagamento Pix foi confirmado.`,
      "",
      "COMPROVANTE DE PAGAMENTO PIX",
      `Valor: ${formatBRL(t.amountCents)}`,
      `Data e hora: ${when(t.paidAt ?? t.updatedAt)}`,
      `Descrição: ${t.description}`,
      `Recebedor: ${account.name}${merchantDocument ? ` — ${merchantDocument}` : ""}`,
      `Pagador: ${t.customer.name}${payerDocument ? ` — ${payerDocument}` : ""}`,
      ...(endToEndId ? [`ID da transação Pix (fim a fim): ${endToEndId}`] : []),
      `ID da transação no recebedor: ${t.id}`,
    ],
    `Guarde este comprovante. Você o recebe porque informou este e-mail ao pagar ${account.name}; dúvidas sobre a compra, fale com o recebedor.`,
  );
}
