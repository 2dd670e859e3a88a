import { createSecureContext } from "node:tls";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../src/bank.js";
import { createCertificateAuthority, toPkcs12 } from "../src/certs.js";
import { call, tokenFor } from "./client.js";

// The control API and the "bank app" page, over plain HTTP on 127.0.0.1, and the certificates
// the bank makes at run time.

describe("fake bank: certificates made at run time", () => {
  test("when a CA issues a server and a client certificate, then each verifies against it, with its names and usage", () => {
    const ca = createCertificateAuthority("Teste CA");
    const server = ca.issueServer(["localhost", "127.0.0.1"]);
    const client = ca.issueClient("cliente-1");
    const caKey = new X509Certificate(ca.certPem).publicKey;
    expect(new X509Certificate(server.certPem).verify(caKey)).toBe(true);
    expect(new X509Certificate(server.certPem).subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1");
    expect(new X509Certificate(client.certPem).subject).toContain("CN=cliente-1");
    expect(new X509Certificate(client.certPem).keyUsage).toContain("1.3.6.1.5.5.7.3.2");
    expect(new X509Certificate(ca.certPem).ca).toBe(true);
    const other = createCertificateAuthority("Outra CA");
    expect(new X509Certificate(server.certPem).verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
  });

  test("when a certificate is packed as PKCS#12, then TLS opens it with its passphrase only", () => {
    const ca = createCertificateAuthority();
    const client = ca.issueClient("cliente-p12");
    const p12 = toPkcs12(client, "senha-forte", [ca.certPem]);
    expect(() => createSecureContext({ pfx: p12, passphrase: "senha-forte" })).not.toThrow();
    expect(() => createSecureContext({ pfx: p12, passphrase: "errada" })).toThrow();
  });

  test("when a certificate is issued for negative days, then it is already expired", () => {
    const expired = createCertificateAuthority().issueClient("velho", { days: -1 });
    expect(Date.parse(new X509Certificate(expired.certPem).validTo)).toBeLessThan(Date.now());
  });
});

describe("fake bank: the control API and the page", () => {
  let bank: FakeBank;
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${bank.controlUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? null : JSON.parse(text) };
  };

  beforeAll(async () => {
    bank = await startFakeBank({ dialect: "efi", customer: { keys: ["controle@example.com"] } });
  });
  afterAll(async () => {
    await bank?.close();
  });

  test("when a customer is created through the control API, then its PKCS#12 and PEM reach the bank's API", async () => {
    const created = await control("POST", "/customers", { keys: ["nova@example.com"], name: "Nova Loja" });
    expect(created.status).toBe(201);
    const p12 = Buffer.from(created.body.p12, "base64");
    const pem = await fetch(`${bank.controlUrl}/customers/${created.body.clientId}/certificate`).then((r) => r.text());
    expect(pem).toContain("BEGIN CERTIFICATE");
    expect(pem).toContain("PRIVATE KEY");
    const token = await tokenFor(bank.tokenUrl, bank.caPem, created.body);
    const answer = await call(`${bank.baseUrl}/webhook/nova@example.com`, {
      ca: bank.caPem,
      identity: created.body,
      token,
    });
    expect(answer.status).toBe(404);
    expect(() => createSecureContext({ pfx: p12, passphrase: created.body.p12Passphrase })).not.toThrow();
    expect((await control("POST", "/customers", { keys: ["nova@example.com"] })).status).toBe(400);
  });

  test("when a static code is paid and a Pix is sent through the control API, then both are listed as received", async () => {
    const { buildBrCode } = await import("../../server/src/pix/brcode.js");
    const code = buildBrCode({
      pixKey: "controle@example.com",
      merchantName: "Loja",
      merchantCity: "Recife",
      amountCents: 4321,
      txid: "pedido42",
    });
    const paid = await control("POST", "/pay", { code, payer: { name: "Maria", cpf: "12345678909" } });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ valor: "43.21", txid: "pedido42", chave: "controle@example.com" });
    const sent = await control("POST", "/send", { key: "controle@example.com", amount: "5,50" });
    expect(sent.body).toMatchObject({ valor: "5.50" });
    expect(sent.body.txid).toBeUndefined();
    const received = await control("GET", `/received?clientId=${bank.customer.clientId}`);
    expect(received.body.map((p: { endToEndId: string }) => p.endToEndId)).toEqual([
      paid.body.endToEndId,
      sent.body.endToEndId,
    ]);
    expect((await control("POST", "/pay", { code: "não é um código" })).status).toBe(400);
    expect((await control("POST", "/send", { key: "ninguem@example.com", amount: "1.00" })).status).toBe(400);
  });

  test("when many codes are paid at once through the control API, then each valid one is received at its amount and each refused one is named by its index", async () => {
    const { buildBrCode } = await import("../../server/src/pix/brcode.js");
    const code = (amountCents: number, txid: string) =>
      buildBrCode({ pixKey: "controle@example.com", merchantName: "Loja", merchantCity: "Recife", amountCents, txid });
    const many = await control("POST", "/pay-many", {
      codes: [code(1001, "lote1"), "não é um código", code(2002, "lote2")],
    });
    expect(many.status).toBe(201);
    expect(many.body.endToEndIds).toHaveLength(2);
    expect(many.body.refused).toEqual([{ index: 1, error: expect.stringContaining("Código Pix inválido") }]);
    const received = (await control("GET", `/received?clientId=${bank.customer.clientId}`)).body as {
      endToEndId: string;
      txid?: string;
      valor: string;
    }[];
    const byId = new Map(received.map((pix) => [pix.endToEndId, pix]));
    expect(many.body.endToEndIds.map((id: string) => byId.get(id))).toMatchObject([
      { txid: "lote1", valor: "10.01" },
      { txid: "lote2", valor: "20.02" },
    ]);
    expect((await control("POST", "/pay-many", { codes: [] })).status).toBe(400);
    expect((await control("POST", "/pay-many", { codes: "um" })).status).toBe(400);
  });

  test("when a MED is raised and faults are switched through the control API, then the bank obeys", async () => {
    const sent = await control("POST", "/send", { key: "controle@example.com", amountCents: 900 });
    const med = await control("POST", "/med", { endToEndId: sent.body.endToEndId, natureza: "MED_OPERACIONAL" });
    expect(med.status).toBe(201);
    const refunds = await control("GET", "/refunds");
    expect(refunds.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: med.body.id, natureza: "MED_OPERACIONAL", status: "DEVOLVIDO" }),
      ]),
    );
    expect((await control("POST", "/faults/calls", { kind: "status", count: 1, route: "^POST /oauth" })).status).toBe(
      204,
    );
    const faulted = await call(bank.tokenUrl, {
      method: "POST",
      ca: bank.caPem,
      identity: bank.customer,
      basic: { id: bank.customer.clientId, secret: bank.customer.clientSecret },
      json: { grant_type: "client_credentials" },
    });
    expect(faulted.status).toBe(503);
    expect(await tokenFor(bank.tokenUrl, bank.caPem, bank.customer)).toBeTruthy();
    expect((await control("POST", "/faults/calls", { kind: "nada" })).status).toBe(400);
    const malformed = await fetch(`${bank.controlUrl}/faults/calls`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect((await control("POST", "/faults/callbacks", { kind: "drop", count: 2 })).status).toBe(204);
    expect((await control("DELETE", "/faults")).status).toBe(204);
    expect((await control("POST", "/tokens/expire")).status).toBe(204);
    const rotated = await control("POST", "/certificate/rotate", {});
    expect(rotated.body.fingerprint256).toBe(bank.serverCertificate().fingerprint256);
    const requests = await control("GET", "/requests");
    expect(requests.body.some((r: { fault?: string }) => r.fault === "status")).toBe(true);
  });

  test("when the page is opened and a form pays a code, then it shows the Pix in Portuguese, its amount in reais", async () => {
    const page = await fetch(bank.pageUrl).then((r) => r.text());
    expect(page).toContain('<html lang="pt-BR">');
    expect(page).toContain("Pagar um Pix");
    const send = (amount: string) =>
      fetch(`${bank.pageUrl}app/enviar`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ key: "controle@example.com", amount }).toString(),
        redirect: "manual",
      });
    const posted = await send("7,25");
    expect(posted.status).toBe(303);
    const shown = await fetch(new URL(posted.headers.get("location") ?? "/", bank.pageUrl)).then((r) => r.text());
    // Intl's pt-BR currency: "R$", a no-break space, a decimal comma and dots between thousands.
    expect(shown).toMatch(/Pix sem txid enviado: E\w+ \(R\$\u00a07,25\)/);
    // Typed as a person in Brazil writes it, thousands grouped; the table of received Pix in reais.
    const grouped = await send("R$ 1.234,56");
    const after = await fetch(new URL(grouped.headers.get("location") ?? "/", bank.pageUrl)).then((r) => r.text());
    expect(after).toMatch(/Pix sem txid enviado: E\w+ \(R\$\u00a01\.234,56\)/);
    expect(bank.received().at(-1)?.valor).toBe("1234.56");
    expect(after).toContain("<td>R$\u00a01.234,56</td>");
    const refused = await fetch(`${bank.pageUrl}app/pagar`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code: "<script>" }).toString(),
      redirect: "manual",
    });
    const error = await fetch(new URL(refused.headers.get("location") ?? "/", bank.pageUrl)).then((r) => r.text());
    expect(error).toContain('class="msg erro"');
    expect(error).not.toContain("<script>");
  });

  test("when transfers sent by the account wait, then the page lists them and its form pays one and fails another, with the reason", async () => {
    const book = bank.payouts!;
    book.setPolicy({ mode: "pending" });
    const send = (n: number) =>
      book.accept({
        clientId: bank.customer.clientId,
        id: `trfPage${Date.now()}${n}`,
        amount: 123_456,
        payerKey: "controle@example.com",
        key: "recebedor@example.com",
      });
    const [paid, failed] = [send(1), send(2)];
    const page = await fetch(bank.pageUrl).then((r) => r.text());
    expect(page).toContain("Pix enviados");
    expect(page).toContain(
      `<td>${paid.id}</td><td>recebedor@example.com</td><td>R$\u00a01.234,56</td><td>PENDING</td>`,
    );
    const settle = (id: string, outcome: string, reason = "") =>
      fetch(`${bank.pageUrl}app/envio`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ id, outcome, reason }).toString(),
        redirect: "manual",
      });
    const shownAfter = async (res: Response) =>
      fetch(new URL(res.headers.get("location") ?? "/", bank.pageUrl)).then((r) => r.text());
    expect(await shownAfter(await settle(paid.id, "pay"))).toContain(`Transferência ${paid.id}: PAID.`);
    const after = await shownAfter(await settle(failed.id, "fail", "Conta encerrada"));
    expect(after).toContain(`Transferência ${failed.id}: FAILED.`);
    expect(after).toContain(
      `<td>${failed.id}</td><td>recebedor@example.com</td><td>R$\u00a01.234,56</td><td>FAILED</td><td>Conta encerrada</td>`,
    );
    expect(book.get(bank.customer.clientId, paid.id)?.state).toBe("PAID");
    // A transfer that ended cannot end again: the page says why.
    expect(await shownAfter(await settle(paid.id, "fail"))).toContain('class="msg erro"');
  });
});
