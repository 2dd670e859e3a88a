/**
 * The "bank app" page: plain HTML forms (no script) over the control API's actions, in
 * Portuguese, for a person trying production mode on one machine.
 */
import type { FakeBank } from "./bank.js";
import { cents } from "./wire.js";

const brl = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });

/** The wire's amount ("1234.50") as a person in Brazil reads it: "R$ 1.234,50" (anything else as it is). */
export function reais(valor: string): string {
  const value = cents(valor);
  return Number.isNaN(value) ? valor : brl.format(value / 100);
}

const escape = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderPage(bank: FakeBank, message: string | undefined, error: boolean): string {
  const received = bank.received().reverse().slice(0, 50);
  const refunds = bank.refunds().reverse().slice(0, 50);
  const callbacks = bank.callbacks().reverse().slice(0, 20);
  const recurrences = bank.recurrences.list();
  const payouts = (bank.payouts?.list() ?? []).reverse().slice(0, 50);
  const rows = (cells: unknown[][]) =>
    cells.map((row) => `<tr>${row.map((cell) => `<td>${escape(cell)}</td>`).join("")}</tr>`).join("");
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Banco Fictício — app</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
form { border: 1px solid #ccc; padding: .75rem; margin: .75rem 0; }
label { display: block; margin: .25rem 0; }
textarea, input[type=text] { width: 100%; box-sizing: border-box; }
table { border-collapse: collapse; width: 100%; font-size: .85rem; }
td, th { border: 1px solid #ddd; padding: .2rem .4rem; text-align: left; }
.msg { padding: .5rem; background: #e8f5e9; } .erro { background: #ffebee; }
</style>
</head>
<body>
<h1>Banco Fictício</h1>
<p>Banco de teste local (padrão API Pix do Banco Central, dialeto <strong>${escape(bank.dialect)}</strong>). Nenhum dinheiro real.</p>
${message === undefined ? "" : `<p class="msg${error ? " erro" : ""}" role="status">${escape(message)}</p>`}

<form method="post" action="/app/pagar">
<h2>Pagar um Pix (QR Code ou copia e cola)</h2>
<p>Você é um pagador de outro banco.</p>
<label>Código copia e cola <textarea name="code" rows="3" required></textarea></label>
<label>Valor (R$; vazio: o valor da cobrança) <input type="text" name="amount" inputmode="decimal"></label>
<label>Data do pagamento (cobrança com vencimento; vazio: hoje; o valor é o devido nesse dia, com multa, juros e descontos) <input type="date" name="date"></label>
<label><input type="checkbox" name="force"> Pagar mesmo removida ou expirada</label>
<button>Pagar</button>
</form>

<form method="post" action="/app/recorrencia">
<h2>Pix Automático: responder a uma recorrência</h2>
<p>Jornada 3: pague o QR composto acima. Jornada 2: aprove aqui.</p>
<label>idRec <input type="text" name="idRec" required></label>
<label><input type="radio" name="outcome" value="approve" checked> Aprovar</label>
<label><input type="radio" name="outcome" value="reject"> Rejeitar (AP13)</label>
<label><input type="radio" name="outcome" value="cancel"> Cancelar como pagador</label>
<button>Aplicar</button>
</form>

<form method="post" action="/app/debitos">
<h2>Pix Automático: processar os débitos até uma data</h2>
<label>Data (AAAA-MM-DD; vazio: hoje) <input type="text" name="date"></label>
<label><input type="checkbox" name="insufficient"> Pagador sem saldo (AM04)</label>
<button>Processar</button>
</form>

<form method="post" action="/app/enviar">
<h2>Enviar um Pix sem txid para uma chave</h2>
<label>Chave <input type="text" name="key" required value="${escape(bank.customer.keys[0] ?? "")}"></label>
<label>Valor (R$) <input type="text" name="amount" required inputmode="decimal"></label>
<button>Enviar</button>
</form>

<form method="post" action="/app/devolucao">
<h2>Concluir ou recusar uma devolução</h2>
<label>E2E id do Pix <input type="text" name="endToEndId" required></label>
<label>Id da devolução <input type="text" name="id" required></label>
<label><input type="radio" name="outcome" value="complete" checked> Concluir (DEVOLVIDO)</label>
<label><input type="radio" name="outcome" value="fail"> Recusar (NAO_REALIZADO)</label>
<label>Motivo <input type="text" name="reason"></label>
<button>Aplicar</button>
</form>

${
  bank.payouts === null
    ? ""
    : `<form method="post" action="/app/envio">
<h2>Pix enviados pela conta (saques): pagar, falhar, aprovar ou reprovar</h2>
<p>O serviço envia cada transferência de um saque de produção; elas terminam assim (ou pela política da API de controle).</p>
<label>Id da transferência (idEnvio, chave de idempotência ou codigoSolicitacao) <input type="text" name="id" required></label>
<label><input type="radio" name="outcome" value="pay" checked> Pagar</label>
<label><input type="radio" name="outcome" value="fail"> Falhar</label>
<label><input type="radio" name="outcome" value="approve"> Aprovar (Inter, acima do limite de aprovação)</label>
<label><input type="radio" name="outcome" value="reject"> Reprovar (Inter)</label>
<label>Motivo (falha ou reprovação) <input type="text" name="reason"></label>
<button>Aplicar</button>
</form>
`
}
<form method="post" action="/app/med">
<h2>Devolução MED sobre um Pix recebido</h2>
<label>E2E id do Pix <input type="text" name="endToEndId" required></label>
<label>Natureza <select name="natureza"><option>MED_OPERACIONAL</option><option>MED_FRAUDE</option></select></label>
<label>Valor (R$; vazio: o que resta) <input type="text" name="amount" inputmode="decimal"></label>
<button>Registrar</button>
</form>

<form method="post" action="/app/falha">
<h2>Falhas</h2>
<label>Tipo <select name="kind">
<option value="drop">Descartar callbacks</option>
<option value="delay">Atrasar callbacks</option>
<option value="duplicate">Duplicar callbacks</option>
<option value="reorder">Inverter a ordem dos callbacks</option>
<option value="forge">Forjar callbacks</option>
<option value="status">Responder 503 na API</option>
<option value="timeout">Não responder na API</option>
<option value="expire">Expirar todos os tokens</option>
<option value="rotate">Trocar o certificado do servidor</option>
<option value="clear">Limpar as falhas</option>
</select></label>
<label>Próximos N <input type="text" name="count" value="1" inputmode="numeric"></label>
<label>Atraso (ms) <input type="text" name="delayMs" value="1000" inputmode="numeric"></label>
<label>Rota (expressão regular sobre "MÉTODO /caminho") <input type="text" name="route"></label>
<button>Aplicar</button>
</form>

<h2>Pix recebidos</h2>
<table><tr><th>E2E id</th><th>Chave</th><th>txid</th><th>Valor</th><th>Horário</th></tr>
${rows(received.map((p) => [p.endToEndId, p.chave ?? "", p.txid ?? "—", reais(p.valor), p.horario]))}</table>
<h2>Devoluções</h2>
<table><tr><th>Pix</th><th>Id</th><th>Natureza</th><th>Valor</th><th>Status</th></tr>
${rows(refunds.map((r) => [r.endToEndId, r.id, r.natureza ?? "", reais(r.valor), r.status]))}</table>
${
  bank.payouts === null
    ? ""
    : `<h2>Pix enviados</h2>
<table><tr><th>Id</th><th>Para a chave</th><th>Valor</th><th>Estado</th><th>Motivo</th><th>Pedido em</th></tr>
${rows(payouts.map((p) => [p.id, p.key, brl.format(p.amount / 100), p.state, p.reason ?? "", p.requestedAt]))}</table>
`
}<h2>Recorrências</h2>
<table><tr><th>idRec</th><th>Status</th><th>Jornada</th><th>Contrato</th></tr>
${rows(recurrences.recs.map((r) => [r.idRec, r.status, r.ativacao?.tipoJornada ?? "", r.vinculo.contrato]))}</table>
<h2>Cobranças recorrentes</h2>
<table><tr><th>txid</th><th>idRec</th><th>Vencimento</th><th>Valor</th><th>Status</th><th>Tentativas</th></tr>
${rows(recurrences.cobrs.map((c) => [c.txid, c.idRec, c.calendario.dataDeVencimento, reais(c.valor.original), c.status, (c.tentativas ?? []).map((t) => `${t.dataLiquidacao} ${t.status}${t.rejeicao ? ` ${t.rejeicao.codigo}` : ""}`).join("; ")]))}</table>
<h2>Callbacks enviados</h2>
<table><tr><th>Horário</th><th>URL</th><th>E2E ids</th><th>Tentativa</th><th>Status</th><th>Falha</th></tr>
${rows(callbacks.map((c) => [c.at, c.url, c.endToEndIds.join(" "), c.attempt, c.status ?? c.error ?? "", c.fault ?? ""]))}</table>
</body>
</html>`;
}
