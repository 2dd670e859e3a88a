import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type CustomerCredentials, type FakeBank } from "../src/bank.js";
import { createCertificateAuthority } from "../src/certs.js";
import { readBrCode } from "../src/brcode.js";
import { call, tokenFor, type Answer } from "./client.js";

// The fake bank's API Pix through its real HTTPS interface: mutual TLS, OAuth2, the standard's
// routes, and every answer checked against the vendored document (the request log's flags).

let counter = 0;
/** A txid of the standard's 26-35 letters and digits, new for each call. */
const newTxid = () => `FakeBankTest${Date.now()}${String(counter++).padStart(4, "0")}`.slice(0, 35);
const KEY = "loja@example.com";
const OTHER_KEY = "outra@example.com";

describe("fake bank: the API Pix over mutual TLS and OAuth2", () => {
  let bank: FakeBank;
  let other: CustomerCredentials;
  let token: string;
  let otherToken: string;
  type Init = Partial<Parameters<typeof call>[1]>;
  const api = (path: string, init: Init = {}): Promise<Answer> =>
    call(`${bank.baseUrl}${path}`, { ca: bank.caPem, identity: bank.customer, token, ...init });
  const createCob = (txid: string, original = "12.34", extra: Record<string, unknown> = {}) =>
    api(`/cob/${txid}`, {
      method: "PUT",
      json: { calendario: { expiracao: 3600 }, valor: { original }, chave: KEY, ...extra },
    });

  beforeAll(async () => {
    bank = await startFakeBank({ customer: { keys: [KEY] }, refunds: { mode: "manual", delayMs: 0 } });
    other = bank.addCustomer({ keys: [OTHER_KEY], name: "Outra Loja" });
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
    otherToken = await tokenFor(bank.tokenUrl, bank.caPem, other);
  });
  afterAll(async () => {
    await bank?.close();
  });

  test("when a client presents no certificate, then the handshake is refused", async () => {
    await expect(call(bank.tokenUrl, { method: "POST", ca: bank.caPem, identity: null, form: {} })).rejects.toThrow();
  });

  test("when a client presents a certificate another CA issued, then the handshake is refused", async () => {
    const stranger = createCertificateAuthority("Stranger CA").issueClient(bank.customer.clientId);
    await expect(
      call(bank.tokenUrl, {
        method: "POST",
        ca: bank.caPem,
        identity: stranger,
        form: { grant_type: "client_credentials" },
      }),
    ).rejects.toThrow();
  });

  test("when the secret is wrong, then the token URL answers 401 invalid_client", async () => {
    const answer = await call(bank.tokenUrl, {
      method: "POST",
      ca: bank.caPem,
      identity: bank.customer,
      basic: { id: bank.customer.clientId, secret: "errado" },
      form: { grant_type: "client_credentials" },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe("invalid_client");
  });

  test("when a client asks a token with another customer's certificate, then it is refused", async () => {
    const answer = await call(bank.tokenUrl, {
      method: "POST",
      ca: bank.caPem,
      identity: other,
      basic: { id: bank.customer.clientId, secret: bank.customer.clientSecret },
      form: { grant_type: "client_credentials" },
    });
    expect(answer.status).toBe(401);
  });

  test("when a valid token is used with another customer's certificate, then the API refuses it", async () => {
    const answer = await api(`/cob/${newTxid()}`, { identity: other });
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toContain("invalid_token");
  });

  test("when the credentials come in the form body (the Inter way), then a token is issued with the asked scope", async () => {
    const answer = await call(bank.tokenUrl, {
      method: "POST",
      ca: bank.caPem,
      identity: bank.customer,
      form: {
        grant_type: "client_credentials",
        client_id: bank.customer.clientId,
        client_secret: bank.customer.clientSecret,
        scope: "cob.read",
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: "Bearer", scope: "cob.read", expires_in: 3600 });
    const write = await createCob(newTxid(), "1.00", {});
    expect(write.status).toBe(201);
    const refused = await api(`/cob/${newTxid()}`, {
      method: "PUT",
      token: answer.body.access_token,
      json: { calendario: { expiracao: 60 }, valor: { original: "1.00" }, chave: KEY },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/AcessoNegado");
  });

  test("when a cob is created twice with the same body, then it is one cob; a new body is a revision; a PATCH removes it", async () => {
    const txid = newTxid();
    const first = await createCob(txid, "12.34", { devedor: { cpf: "12345678909", nome: "Fulano" } });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ txid, revisao: 0, status: "ATIVA", chave: KEY, valor: { original: "12.34" } });
    const again = await createCob(txid, "12.34", { devedor: { cpf: "12345678909", nome: "Fulano" } });
    expect(again.body).toEqual(first.body);
    const revised = await createCob(txid, "15.00", { devedor: { cpf: "12345678909", nome: "Fulano" } });
    expect(revised.body).toMatchObject({ revisao: 1, valor: { original: "15.00" }, location: first.body.location });
    // `GET /cob/{txid}?revisao=n` cannot be asked: the document's Revisao schema is readOnly, so its
    // validator refuses the query parameter (a defect of the document, for the overlay).
    expect((await api(`/cob/${txid}?revisao=0`)).status).toBe(400);
    const removed = await api(`/cob/${txid}`, { method: "PATCH", json: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ status: "REMOVIDA_PELO_USUARIO_RECEBEDOR", revisao: 2 });
    const removedAgain = await api(`/cob/${txid}`, {
      method: "PATCH",
      json: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" },
    });
    expect(removedAgain.status).toBe(400);
    expect(removedAgain.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida");
    const put = await createCob(txid);
    expect(put.status).toBe(400);
  });

  test("when a cob is created, then its code is a dynamic BR Code with the location and no txid", async () => {
    const created = await createCob(newTxid());
    const code = readBrCode(created.body.pixCopiaECola);
    expect(code).toMatchObject({ crcValid: true, pixKey: null, txid: "***", location: created.body.location });
    expect(created.body.location).toMatch(/^localhost:\d+\/qr\/v2\/[0-9a-f]{32}$/);
    expect(created.body.loc).toMatchObject({ tipoCob: "cob", location: created.body.location });
  });

  test("when a request breaks the document, then it gets the standard's problem and the log marks it invalid", async () => {
    const txid = newTxid();
    const answer = await api(`/cob/${txid}`, {
      method: "PUT",
      json: { calendario: { expiracao: 3600 }, valor: { original: "12,34" }, chave: KEY },
    });
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toContain("application/problem+json");
    expect(answer.body).toMatchObject({
      type: "https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida",
      status: 400,
    });
    expect(answer.body.violacoes.some((v: { propriedade: string }) => v.propriedade.includes("valor"))).toBe(true);
    const logged = bank.requests().find((r) => r.path.endsWith(txid));
    expect(logged).toMatchObject({ requestValid: false, status: 400 });
    const { request } = await import("node:https");
    const malformed = await new Promise<number>((resolve, reject) => {
      const req = request(`${bank.baseUrl}/cob/${newTxid()}`, {
        method: "PUT",
        ca: bank.caPem,
        cert: bank.customer.certPem,
        key: bank.customer.keyPem,
        agent: false,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.end("{not json");
    });
    expect(malformed).toBe(400);
  });

  test("when a cob names a key of another customer, then it is refused", async () => {
    const answer = await api(`/cob/${newTxid()}`, {
      method: "PUT",
      json: { calendario: { expiracao: 3600 }, valor: { original: "1.00" }, chave: OTHER_KEY },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.violacoes[0].propriedade).toBe("cob.chave");
  });

  test("when a code is paid, then the Pix reads back by e2eid, in the list, and on the cob — for its customer only", async () => {
    const txid = newTxid();
    const created = await createCob(txid, "20.00");
    const paid = bank.pay(created.body.pixCopiaECola, { amountCents: 1999 });
    expect(paid.endToEndId).toMatch(/^E12345678\d{12}[A-Za-z0-9]{11}$/);
    const read = await api(`/pix/${paid.endToEndId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ endToEndId: paid.endToEndId, txid, valor: "19.99", chave: KEY });
    const cob = await api(`/cob/${txid}`);
    expect(cob.body.status).toBe("CONCLUIDA");
    expect(cob.body.pix[0].endToEndId).toBe(paid.endToEndId);
    const theirs = await api(`/pix/${paid.endToEndId}`, { identity: other, token: otherToken });
    expect(theirs.status).toBe(404);
    expect(theirs.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado");
    const theirCob = await api(`/cob/${txid}`, { identity: other, token: otherToken });
    expect(theirCob.status).toBe(404);
    expect(() => bank.pay(created.body.pixCopiaECola)).toThrow(/CONCLUIDA/);
  });

  test("when Pix are listed over a window, then they come in pages", async () => {
    const inicio = new Date(Date.now() - 1000).toISOString();
    const sent = [1, 2, 3].map((n) => bank.sendPix({ key: KEY, amountCents: 100 * n }));
    const fim = new Date(Date.now() + 1000).toISOString();
    const query = (page: number) =>
      api(
        `/pix?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}&txIdPresente=false&paginacao.paginaAtual=${page}&paginacao.itensPorPagina=2`,
      );
    const first = await query(0);
    expect(first.status, first.text).toBe(200);
    expect(first.body.parametros.paginacao).toMatchObject({ quantidadeDePaginas: 2, quantidadeTotalDeItens: 3 });
    const second = await query(1);
    const ids = [...first.body.pix, ...second.body.pix].map((p: { endToEndId: string }) => p.endToEndId);
    expect(ids.sort()).toEqual(sent.map((p) => p.endToEndId).sort());
    expect(first.body.pix.every((p: { txid?: string }) => p.txid === undefined)).toBe(true);
    const cobs = await api(`/cob?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}`);
    expect(cobs.status, cobs.text).toBe(200);
    const backwards = await api(`/pix?inicio=${encodeURIComponent(fim)}&fim=${encodeURIComponent(inicio)}`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida");
  });

  test("when the client goes away while the bank takes its time, then the request it sent is still carried out, as a bank does", async () => {
    // Arrange: a paid Pix, and a bank that answers after 400 ms.
    const paid = bank.pay((await createCob(newTxid(), "10.00")).body.pixCopiaECola);
    bank.setLatency(400);
    try {
      // Act: the devolução is sent whole, and its client gives up (its connection closed) at 100 ms.
      const abandoned = api(`/pix/${paid.endToEndId}/devolucao/Abandonada`, {
        method: "PUT",
        json: { valor: "3.00" },
        timeoutMs: 100,
      });
      await expect(abandoned).rejects.toThrow("timeout");
      const deadline = Date.now() + 5_000;
      while (!bank.refunds().some((r) => r.id === "Abandonada") && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      bank.setLatency(0);
    }

    // Assert: the bank made it (the token was checked against the certificate the request came with).
    expect(bank.refunds().filter((r) => r.endToEndId === paid.endToEndId)).toMatchObject([{ id: "Abandonada" }]);
    const read = await api(`/pix/${paid.endToEndId}/devolucao/Abandonada`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ id: "Abandonada", valor: "3.00" });
  });

  test("when a devolução is asked, then it is idempotent on its id, bounded by the Pix, and settles from the control", async () => {
    const paid = bank.pay((await createCob(newTxid(), "10.00")).body.pixCopiaECola);
    const ask = (id: string, valor: string) =>
      api(`/pix/${paid.endToEndId}/devolucao/${id}`, { method: "PUT", json: { valor } });
    const first = await ask("Dev1", "4.00");
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ id: "Dev1", valor: "4.00", status: "EM_PROCESSAMENTO", natureza: "ORIGINAL" });
    expect(first.body.rtrId).toMatch(/^D99999999/);
    expect((await ask("Dev1", "4.00")).body).toEqual(first.body);
    expect((await ask("Dev1", "5.00")).status).toBe(400);
    const tooMuch = await ask("Dev2", "6.01");
    expect(tooMuch.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida");
    bank.completeRefund(paid.endToEndId, "Dev1");
    const done = await api(`/pix/${paid.endToEndId}/devolucao/Dev1`);
    expect(done.body).toMatchObject({ status: "DEVOLVIDO" });
    expect(done.body.horario.liquidacao).toBeDefined();
    await ask("Dev3", "6.00");
    bank.failRefund(paid.endToEndId, "Dev3", "Conta encerrada");
    const failed = await api(`/pix/${paid.endToEndId}/devolucao/Dev3`);
    expect(failed.body).toMatchObject({ status: "NAO_REALIZADO", motivo: "Conta encerrada" });
    expect((await api(`/pix/${paid.endToEndId}/devolucao/Nenhuma`)).status).toBe(404);
  });

  test("when a MED is raised on a received Pix, then the Pix shows a MED devolução", async () => {
    const paid = bank.pay((await createCob(newTxid(), "30.00")).body.pixCopiaECola);
    const med = bank.raiseMed({ endToEndId: paid.endToEndId, natureza: "MED_FRAUDE" });
    const read = await api(`/pix/${paid.endToEndId}`);
    expect(read.body.devolucoes).toEqual([
      expect.objectContaining({ id: med.id, natureza: "MED_FRAUDE", valor: "30.00", status: "DEVOLVIDO" }),
    ]);
    const pending = bank.pay((await createCob(newTxid(), "8.00")).body.pixCopiaECola);
    bank.raiseMed({
      endToEndId: pending.endToEndId,
      natureza: "MED_OPERACIONAL",
      amountCents: 300,
      status: "EM_PROCESSAMENTO",
    });
    const open = await api(`/pix/${pending.endToEndId}`);
    expect(open.body.devolucoes[0]).toMatchObject({
      natureza: "MED_OPERACIONAL",
      valor: "3.00",
      status: "EM_PROCESSAMENTO",
    });
  });

  test("when webhooks are registered, read and removed, then each customer reaches only its own keys", async () => {
    const url = "https://127.0.0.1:9/hook";
    expect((await api(`/webhook/${KEY}`, { method: "PUT", json: { webhookUrl: url } })).status).toBe(200);
    const read = await api(`/webhook/${KEY}`);
    expect(read.body).toMatchObject({ webhookUrl: url, chave: KEY });
    const theirs = await api(`/webhook/${KEY}`, {
      method: "PUT",
      json: { webhookUrl: url },
      identity: other,
      token: otherToken,
    });
    expect(theirs.status).toBe(400);
    expect((await api(`/webhook/${KEY}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/webhook/${KEY}`)).status).toBe(404);
  });

  test("when the next call on a route is faulted with 503, then it answers 503 with Retry-After, and the one after is served", async () => {
    bank.faultCalls({ kind: "status", status: 503, count: 1, route: "^GET /cob/" });
    const txid = newTxid();
    await createCob(txid);
    const faulted = await api(`/cob/${txid}`);
    expect(faulted.status).toBe(503);
    expect(faulted.headers["retry-after"]).toBe("1");
    expect(faulted.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel");
    expect((await api(`/cob/${txid}`)).status).toBe(200);
  });

  test("when the next call is faulted with a timeout, then no answer comes, and the one after is served", async () => {
    bank.faultCalls({ kind: "timeout", count: 1, route: "^GET /cob/" });
    const txid = newTxid();
    await createCob(txid);
    await expect(api(`/cob/${txid}`, { timeoutMs: 300 })).rejects.toThrow(/timeout|socket hang up/);
    expect((await api(`/cob/${txid}`)).status).toBe(200);
  });

  test("when every token is expired, then the next call is refused until a new token is taken", async () => {
    bank.expireTokens();
    const refused = await api(`/cob/${newTxid()}`);
    expect(refused.status).toBe(401);
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
    otherToken = await tokenFor(bank.tokenUrl, bank.caPem, other);
    expect((await api(`/cob/${newTxid()}`)).status).toBe(404);
  });

  test("when the server certificate is rotated, then new connections see the new one", async () => {
    const before = bank.serverCertificate().fingerprint256;
    const rotated = bank.rotateServerCertificate();
    expect(rotated.fingerprint256).not.toBe(before);
    const url = new URL(bank.baseUrl);
    const seen = await new Promise<string>((resolve, reject) => {
      const socket = connect({
        host: url.hostname,
        port: Number(url.port),
        ca: bank.caPem,
        cert: bank.customer.certPem,
        key: bank.customer.keyPem,
        servername: "localhost",
      });
      socket.once("secureConnect", () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.end();
      });
      socket.once("error", reject);
    });
    expect(seen).toBe(rotated.fingerprint256);
    expect((await api(`/cob/${newTxid()}`)).status).toBe(404);
  });

  test("when the suite is done, then every answer the bank gave was valid against the document", () => {
    const checked = bank.requests().filter((r) => r.responseValid !== null);
    expect(checked.length).toBeGreaterThan(20);
    // The one exception: GET /pix with `fim` before `inicio` is answered 400 PixConsultaInvalida, as
    // the document's text says, though its responses for GET /pix declare no 400 (for the overlay).
    const textOnly = (r: { method: string; path: string; status: number }) =>
      r.method === "GET" && /\/pix\?/.test(r.path) && r.status === 400;
    expect(bank.requests().filter((r) => r.responseValid === false && !textOnly(r))).toEqual([]);
  });
});
