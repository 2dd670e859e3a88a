import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type CustomerCredentials, type FakeBank } from "../src/bank.js";
import { call, tokenFor, type Answer } from "./client.js";

// The fake bank's charges with a due date (fake-bank/src/cobv.ts, issue 38) through its HTTPS API:
// PUT/PATCH/GET /cobv/{txid} and the list, each request and answer within the document (its
// overlay's desconto correction included); the text's refusals; one customer's cobv out of
// another's reach; and the payer paying on a date for the amount the bank computes then, with its
// `componentesValor` — the standard's own example (R$ 100,00, 2 days late, 3 % fine, 1 % a day:
// R$ 105,00).

const KEY = "escola@example.com";
const OTHER_KEY = "outra-escola@example.com";
/** A Monday that is a business day, years ahead (no date here rots). */
const DUE = "2031-03-10";

describe("fake bank: charges with a due date (cobv)", () => {
  let bank: FakeBank;
  let other: CustomerCredentials;
  let token: string;
  let otherToken: string;
  type Init = Partial<Parameters<typeof call>[1]>;
  const api = (path: string, init: Init = {}): Promise<Answer> =>
    call(`${bank.baseUrl}${path}`, { ca: bank.caPem, identity: bank.customer, token, ...init });
  const body = (valor: Record<string, unknown>, calendario: Record<string, unknown> = {}) => ({
    calendario: { dataDeVencimento: DUE, validadeAposVencimento: 30, ...calendario },
    devedor: { cpf: "52998224725", nome: "Maria da Silva", email: "maria@example.com" },
    valor: { original: "100.00", ...valor },
    chave: KEY,
    solicitacaoPagador: "Mensalidade",
  });
  const put = (txid: string, json: unknown) => api(`/cobv/${txid}`, { method: "PUT", json });
  const txid = (n: number) => `cobvteste${String(n).padStart(20, "0")}`;

  beforeAll(async () => {
    bank = await startFakeBank({ customer: { keys: [KEY] } });
    other = bank.addCustomer({ keys: [OTHER_KEY], name: "Outra Escola" });
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
    otherToken = await tokenFor(bank.tokenUrl, bank.caPem, other);
  });
  afterAll(async () => {
    await bank?.close();
  });

  test("when a cobv is created, read, listed and removed, then each answer is the document's and the removed one cannot be paid", async () => {
    const created = await put(txid(1), body({ multa: { modalidade: 2, valorPerc: "3.00" } }));
    const again = await put(txid(1), body({ multa: { modalidade: 2, valorPerc: "3.00" } }));
    const read = await api(`/cobv/${txid(1)}`);
    const now = new Date();
    const window = new URLSearchParams({
      inicio: new Date(now.getTime() - 60_000).toISOString(),
      fim: new Date(now.getTime() + 60_000).toISOString(),
      cpf: "52998224725",
    });
    const list = await api(`/cobv?${window.toString()}`);
    const removed = await api(`/cobv/${txid(1)}`, {
      method: "PATCH",
      json: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" },
    });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      txid: txid(1),
      revisao: 0,
      status: "ATIVA",
      calendario: { dataDeVencimento: DUE, validadeAposVencimento: 30 },
      loc: { tipoCob: "cobv" },
      recebedor: { cnpj: expect.any(String), uf: "SP" },
    });
    expect(created.body.loc.location).toContain("/qr/v2/cobv/");
    expect(again.body.revisao).toBe(0);
    expect(read.body).toMatchObject({ txid: txid(1), status: "ATIVA" });
    expect(list.status).toBe(200);
    expect(list.body.cobs.map((c: { txid: string }) => c.txid)).toEqual([txid(1)]);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ status: "REMOVIDA_PELO_USUARIO_RECEBEDOR", revisao: 1 });
    expect(() => bank.pay(created.body.pixCopiaECola, { date: DUE })).toThrow(/REMOVIDA/);
    expect(bank.requests().filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);
  });

  test("when a per-day discount is sent, then it is taken (the overlay requires descontoDataFixa only of the fixed-date branch)", async () => {
    const created = await put(txid(2), body({ desconto: { modalidade: 3, valorPerc: "0.50" } }));
    expect(created.status).toBe(201);
    expect(created.body.valor.desconto).toEqual({ modalidade: 3, valorPerc: "0.50" });
  });

  test.each([
    [
      "a discount date after the due date",
      body({ desconto: { modalidade: 1, descontoDataFixa: [{ data: "2031-03-11", valorPerc: "1.00" }] } }),
    ],
    ["a rebate reaching the amount", body({ abatimento: { modalidade: 1, valorPerc: "100.00" } })],
    ["a due date in the past", body({}, { dataDeVencimento: "2020-01-02" })],
    ["a key of another customer", { ...body({}), chave: OTHER_KEY }],
  ])("when the request has %s, then 400 CobVOperacaoInvalida", async (_what, json) => {
    const refused = await put(txid(3), json);
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida");
    expect((await api(`/cobv/${txid(3)}`)).status).toBe(404);
  });

  test("when another customer reads the cobv, then 404 CobVNaoEncontrada", async () => {
    await put(txid(4), body({}));
    const stranger = await call(`${bank.baseUrl}/cobv/${txid(4)}`, {
      ca: bank.caPem,
      identity: other,
      token: otherToken,
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body.type).toContain("CobVNaoEncontrada");
  });

  test("when the payer pays 2 days late with 3 % fine and 1 % a day (the standard's example), then the Pix is 105,00 with its componentesValor, and after the last day it is refused", async () => {
    const created = await put(
      txid(5),
      body(
        { multa: { modalidade: 2, valorPerc: "3.00" }, juros: { modalidade: 2, valorPerc: "1.00" } },
        { validadeAposVencimento: 3 },
      ),
    );
    const code = created.body.pixCopiaECola as string;

    expect(() => bank.pay(code, { date: "2031-03-14" })).toThrow(/último dia: 2031-03-13/);
    const pix = bank.pay(code, { date: "2031-03-12" });
    const read = await api(`/cobv/${txid(5)}`);
    const received = await api(`/pix/${pix.endToEndId}`);

    expect(pix).toMatchObject({ valor: "105.00", txid: txid(5), horario: "2031-03-12T15:00:00.000Z" });
    expect(pix.componentesValor).toEqual({
      original: { valor: "100.00" },
      multa: { valor: "3.00" },
      juros: { valor: "2.00" },
    });
    expect(read.body).toMatchObject({ status: "CONCLUIDA", pix: [{ endToEndId: pix.endToEndId }] });
    expect(received.body.componentesValor).toEqual(pix.componentesValor);
    expect(bank.requests().filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);
  });
});
