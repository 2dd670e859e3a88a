/**
 * The fake bank's control API (JSON, plain HTTP on 127.0.0.1) and its "bank app" page: what a
 * payer of another bank and the bank's back office do, and the faults tests switch on. Nothing
 * here is part of the standard; see fake-bank/README.md for the routes.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import type { CallFault, FakeBank, PayOptions } from "./bank.js";
import type { CallbackFault } from "./callbacks.js";
import { cents } from "./wire.js";
import { reais, renderPage } from "./page.js";
import { payoutControl } from "./payouts.js";

/**
 * Reais as typed ("12,34", "1.234,56", "R$ 12", or the wire's "12.34") or cents as a number (1234)
 * to cents; undefined when absent or empty. With a comma, it is the decimal mark and dots group
 * thousands; without one, a dot is the decimal mark (the API's `valor`).
 */
function amount(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "number") return value;
  const typed = String(value)
    .trim()
    .replace(/^R\$\s*/, "");
  const text = typed.includes(",") ? typed.replace(/\.(?=\d{3}(\D|$))/g, "").replace(",", ".") : typed;
  const parsed = /^\d+$/.test(text) ? Number(text) * 100 : cents(/^\d+\.\d$/.test(text) ? `${text}0` : text);
  if (!Number.isSafeInteger(parsed)) throw new BadRequest(`Valor inválido: ${String(value)}`);
  return parsed;
}

class BadRequest extends Error {}

const text = (value: unknown): string | undefined =>
  value === undefined || value === null || value === "" ? undefined : String(value);

function payer(body: Record<string, unknown>): PayOptions["payer"] | undefined {
  const given = (body.payer ?? {}) as Record<string, unknown>;
  const name = text(given.name ?? body.payerName);
  if (name === undefined) return undefined;
  const document = text(given.cpf ?? given.cnpj ?? body.payerDocument)?.replace(/\D/g, "");
  return {
    name,
    ...(document === undefined ? {} : document.length === 14 ? { cnpj: document } : { cpf: document }),
  };
}

export function createControlApp(bank: FakeBank): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "1mb" }));
  app.use(express.urlencoded({ extended: false, limit: "64kb" }));
  const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;
  const control = express.Router();
  app.use("/control", control);
  if (bank.payouts !== null) control.use(payoutControl(bank.payouts, () => bank.customer.clientId));

  control.get("/", (_req, res) => {
    res.json({
      dialect: bank.dialect,
      baseUrl: bank.baseUrl,
      tokenUrl: bank.tokenUrl,
      pageUrl: bank.pageUrl,
      caPem: bank.caPem,
      clientId: bank.customer.clientId,
      keys: bank.customer.keys,
    });
  });

  control.post("/customers", (req, res) => {
    const input = body(req);
    const created = bank.addCustomer({
      ...(text(input.clientId) === undefined ? {} : { clientId: text(input.clientId) }),
      ...(Array.isArray(input.keys) ? { keys: input.keys.map(String) } : {}),
      ...(text(input.cnpj) === undefined ? {} : { cnpj: text(input.cnpj) }),
      ...(text(input.name) === undefined ? {} : { name: text(input.name) }),
    });
    res.status(201).json({ ...created, p12: created.p12.toString("base64") });
  });

  control.get("/customers/:clientId/certificate", (req, res) => {
    const credentials = bank.credentials(req.params.clientId ?? "");
    if (credentials === null) {
      res.status(404).json({ error: "Cliente não encontrado." });
      return;
    }
    if (req.query.format === "p12") {
      res.type("application/x-pkcs12").setHeader("X-P12-Passphrase", credentials.p12Passphrase).send(credentials.p12);
      return;
    }
    res.type("application/x-pem-file").send(`${credentials.certPem}${credentials.keyPem}`);
  });

  control.post("/pay", (req, res) => {
    const input = body(req);
    const code = text(input.code);
    if (code === undefined) throw new BadRequest("Informe o código Pix (copia e cola).");
    const amountCents = amount(input.amountCents ?? input.amount);
    const who = payer(input);
    res.status(201).json(
      bank.pay(code, {
        ...(amountCents === undefined ? {} : { amountCents }),
        ...(who === undefined ? {} : { payer: who }),
        ...(text(input.infoPagador) === undefined ? {} : { infoPagador: text(input.infoPagador) }),
        ...(text(input.date) === undefined ? {} : { date: text(input.date) }),
        force: input.force === true || input.force === "true" || input.force === "on",
      }),
    );
  });

  control.post("/pay-many", (req, res) => {
    const input = body(req);
    const codes = input.codes;
    if (
      !Array.isArray(codes) ||
      codes.length === 0 ||
      codes.length > 1000 ||
      !codes.every((c) => typeof c === "string")
    )
      throw new BadRequest("Informe codes: de 1 a 1000 códigos Pix (copia e cola).");
    const who = payer(input);
    const { paid, refused } = bank.payMany(codes, {
      ...(who === undefined ? {} : { payer: who }),
      force: input.force === true,
    });
    res.status(201).json({ endToEndIds: paid.map((pix) => pix.endToEndId), refused });
  });

  control.post("/send", (req, res) => {
    const input = body(req);
    const key = text(input.key);
    const amountCents = amount(input.amountCents ?? input.amount);
    if (key === undefined || amountCents === undefined) throw new BadRequest("Informe a chave e o valor.");
    const who = payer(input);
    res.status(201).json(
      bank.sendPix({
        key,
        amountCents,
        ...(text(input.txid) === undefined ? {} : { txid: text(input.txid) }),
        ...(who === undefined ? {} : { payer: who }),
        ...(text(input.infoPagador) === undefined ? {} : { infoPagador: text(input.infoPagador) }),
      }),
    );
  });

  control.post("/refunds/:e2eid/:id/complete", (req, res) => {
    bank.completeRefund(req.params.e2eid ?? "", req.params.id ?? "");
    res.status(204).end();
  });
  control.post("/refunds/:e2eid/:id/fail", (req, res) => {
    bank.failRefund(req.params.e2eid ?? "", req.params.id ?? "", text(body(req).reason));
    res.status(204).end();
  });
  control.put("/refund-policy", (req, res) => {
    const input = body(req);
    const mode = text(input.mode);
    if (mode !== "complete" && mode !== "fail" && mode !== "manual")
      throw new BadRequest("mode deve ser complete, fail ou manual.");
    bank.setRefundPolicy({ mode, delayMs: Number(input.delayMs ?? 0) || 0 });
    res.status(204).end();
  });
  control.post("/med", (req, res) => {
    const input = body(req);
    const natureza = text(input.natureza);
    if (natureza !== "MED_OPERACIONAL" && natureza !== "MED_FRAUDE")
      throw new BadRequest("natureza deve ser MED_OPERACIONAL ou MED_FRAUDE.");
    const amountCents = amount(input.amountCents ?? input.amount);
    const status = text(input.status);
    res.status(201).json(
      bank.raiseMed({
        endToEndId: text(input.endToEndId) ?? "",
        natureza,
        ...(amountCents === undefined ? {} : { amountCents }),
        ...(status === "EM_PROCESSAMENTO" || status === "DEVOLVIDO" ? { status } : {}),
        ...(text(input.motivo) === undefined ? {} : { motivo: text(input.motivo) }),
      }),
    );
  });

  control.post("/faults/calls", (req, res) => {
    const input = body(req);
    const kind = text(input.kind);
    if (kind !== "status" && kind !== "timeout" && kind !== "malformed") {
      throw new BadRequest("kind deve ser status, timeout ou malformed.");
    }
    const fault: CallFault = { kind, count: Number(input.count ?? 1) };
    if (input.status !== undefined) fault.status = Number(input.status);
    if (text(input.route) !== undefined) fault.route = text(input.route);
    try {
      bank.faultCalls(fault);
    } catch (error) {
      throw new BadRequest(`route inválida: ${(error as Error).message}`);
    }
    res.status(204).end();
  });
  control.post("/faults/callbacks", (req, res) => {
    const input = body(req);
    const kind = text(input.kind);
    if (!["delay", "drop", "duplicate", "reorder", "forge"].includes(kind ?? ""))
      throw new BadRequest("kind deve ser delay, drop, duplicate, reorder ou forge.");
    const fault: CallbackFault = { kind: kind as CallbackFault["kind"], count: Number(input.count ?? 1) };
    if (input.delayMs !== undefined) fault.delayMs = Number(input.delayMs);
    bank.faultCallbacks(fault);
    res.status(204).end();
  });
  control.post("/faults/callbacks/release", (_req, res) => {
    bank.releaseReordered();
    res.status(204).end();
  });
  control.delete("/faults", (_req, res) => {
    bank.clearFaults();
    res.status(204).end();
  });
  control.post("/tokens/expire", (_req, res) => {
    bank.expireTokens();
    res.status(204).end();
  });
  control.post("/certificate/rotate", (req, res) => {
    const rotated = bank.rotateServerCertificate({ newCa: body(req).newCa === true });
    res.json({ certPem: rotated.certPem, fingerprint256: rotated.fingerprint256, caPem: bank.caPem });
  });
  control.post("/webhook-trust", (req, res) => {
    const pem = text(body(req).caPem);
    if (pem === undefined || !pem.includes("BEGIN CERTIFICATE")) throw new BadRequest("Informe caPem (PEM).");
    bank.trustWebhookCa(pem);
    res.status(204).end();
  });
  control.put("/latency", (req, res) => {
    bank.setLatency(Number(body(req).ms ?? 0) || 0);
    res.status(204).end();
  });
  control.put("/callback-connections", (req, res) => {
    const connections = text(body(req).connections);
    if (connections !== "kept" && connections !== "new") throw new BadRequest("connections deve ser kept ou new.");
    bank.setCallbackConnections(connections);
    res.status(204).end();
  });

  // Pix Automático: the payer's answers, the debits of each date, the payer's balance.
  control.post("/recurrences/:idRec/:action", (req, res) => {
    const idRec = req.params.idRec ?? "";
    const action = req.params.action;
    if (action === "approve") bank.recurrences.approve(idRec);
    else if (action === "reject") {
      const code = text(body(req).code);
      if (code !== undefined && code !== "AP13" && code !== "AP14") throw new BadRequest("code deve ser AP13 ou AP14.");
      bank.recurrences.reject(idRec, code);
    } else if (action === "cancel") bank.recurrences.cancelByPayer(idRec);
    else throw new BadRequest("Ação: approve, reject ou cancel.");
    res.status(204).end();
  });
  control.post("/cobr/run", (req, res) => {
    const date = text(body(req).date);
    if (date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new BadRequest("date: AAAA-MM-DD.");
    res.json({ debited: bank.recurrences.runDate(date) });
  });
  control.put("/payer-funds", (req, res) => {
    const insufficient = body(req).insufficient;
    if (typeof insufficient !== "boolean") throw new BadRequest("insufficient: true ou false.");
    bank.recurrences.setPayerFunds({ insufficient });
    res.status(204).end();
  });
  control.get("/recurrences", (_req, res) => res.json(bank.recurrences.list()));

  control.get("/received", (req, res) => res.json(bank.received(text(req.query.clientId))));
  control.get("/refunds", (_req, res) => res.json(bank.refunds()));
  control.get("/callbacks", (_req, res) => res.json(bank.callbacks()));
  control.get("/requests", (_req, res) => res.json(bank.requests()));

  // The "bank app": forms post here, the page shows the outcome.
  app.get("/", (req, res) => {
    res.type("html").send(renderPage(bank, text(req.query.msg), req.query.erro === "1"));
  });
  app.post("/app/:action", (req, res) => {
    const input = body(req);
    const back = (message: string, error = false) =>
      res.redirect(303, `/?msg=${encodeURIComponent(message)}${error ? "&erro=1" : ""}`);
    try {
      const action = req.params.action;
      if (action === "pagar") {
        const amountCents = amount(input.amount);
        const pix = bank.pay(text(input.code) ?? "", {
          ...(amountCents === undefined ? {} : { amountCents }),
          ...(text(input.date) === undefined ? {} : { date: text(input.date) }),
          force: input.force === "on",
        });
        back(`Pix enviado: ${pix.endToEndId} (${reais(pix.valor)}).`);
      } else if (action === "recorrencia") {
        const idRec = text(input.idRec) ?? "";
        if (input.outcome === "reject") bank.recurrences.reject(idRec, input.code === "AP14" ? "AP14" : "AP13");
        else if (input.outcome === "cancel") bank.recurrences.cancelByPayer(idRec);
        else bank.recurrences.approve(idRec);
        back(`Recorrência ${idRec}: feito.`);
      } else if (action === "debitos") {
        bank.recurrences.setPayerFunds({ insufficient: input.insufficient === "on" });
        const debited = bank.recurrences.runDate(text(input.date));
        back(`${debited} débito(s) processado(s).`);
      } else if (action === "enviar") {
        const pix = bank.sendPix({ key: text(input.key) ?? "", amountCents: amount(input.amount) ?? 0 });
        back(`Pix sem txid enviado: ${pix.endToEndId} (${reais(pix.valor)}).`);
      } else if (action === "devolucao") {
        const e2eid = text(input.endToEndId) ?? "";
        const id = text(input.id) ?? "";
        if (input.outcome === "fail") bank.failRefund(e2eid, id, text(input.reason));
        else bank.completeRefund(e2eid, id);
        back(`Devolução ${id} ${input.outcome === "fail" ? "recusada" : "concluída"}.`);
      } else if (action === "envio") {
        const book = bank.payouts;
        if (book === null) throw new BadRequest("O dialeto padrão não envia Pix.");
        const id = text(input.id) ?? "";
        const reason = text(input.reason);
        const done =
          input.outcome === "fail"
            ? book.settle(id, "fail", reason)
            : input.outcome === "approve"
              ? book.approve(id)
              : input.outcome === "reject"
                ? book.reject(id, reason)
                : book.settle(id, "pay");
        back(`Transferência ${done.id}: ${done.state}.`);
      } else if (action === "med") {
        const natureza = input.natureza === "MED_FRAUDE" ? "MED_FRAUDE" : "MED_OPERACIONAL";
        const amountCents = amount(input.amount);
        const med = bank.raiseMed({
          endToEndId: text(input.endToEndId) ?? "",
          natureza,
          ...(amountCents === undefined ? {} : { amountCents }),
        });
        back(`Devolução ${natureza} ${med.id} registrada.`);
      } else if (action === "falha") {
        const kind = text(input.kind) ?? "";
        const count = Number(input.count ?? 1) || 1;
        if (["delay", "drop", "duplicate", "reorder", "forge"].includes(kind))
          bank.faultCallbacks({ kind: kind as CallbackFault["kind"], count, delayMs: Number(input.delayMs ?? 1000) });
        else if (kind === "status" || kind === "timeout")
          bank.faultCalls({
            kind,
            count,
            status: Number(input.status ?? 503),
            ...(text(input.route) ? { route: text(input.route) } : {}),
          });
        else if (kind === "expire") bank.expireTokens();
        else if (kind === "rotate") bank.rotateServerCertificate();
        else if (kind === "clear") bank.clearFaults();
        else throw new BadRequest(`Falha desconhecida: ${kind}`);
        back("Feito.");
      } else {
        back(`Ação desconhecida: ${action}`, true);
      }
    } catch (error) {
      back((error as Error).message, true);
    }
  });

  app.use((_req: Request, res: Response) => res.status(404).json({ error: "Rota desconhecida." }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: unknown }).status;
    const known =
      error instanceof BadRequest ||
      (error as Error).name === "FakeBankError" ||
      (typeof status === "number" && status >= 400 && status < 500);
    res.status(known ? 400 : 500).json({ error: (error as Error).message });
  });
  return app;
}
