import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFakeBank, type FakeBank } from "../src/bank.js";
import { call, tokenFor, type Answer } from "./client.js";

// The fake bank's Pix Automático (fake-bank/src/rec.ts) through its real HTTPS interface: the
// standard's rules it plays (a location used once, a cobr only for an approved recurrence, within
// 2 to 10 days, one per cycle, to the customer's account; retries only under PERMITE_3R_7D, one at a
// time), another customer's records out of reach, and every answer within the vendored document.

const KEY = "academia@example.com";
const dateAfter = (days: number) => new Date(Date.now() - 3 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
let counter = 0;
const newTxid = () => `FakeRecTest${Date.now()}${String(counter++).padStart(4, "0")}`.slice(0, 35);

describe("fake bank: Pix Automático", () => {
  let bank: FakeBank;
  let token: string;
  let otherToken: string;
  let other: ReturnType<FakeBank["addCustomer"]>;
  type Init = Partial<Parameters<typeof call>[1]>;
  const api = (path: string, init: Init = {}): Promise<Answer> =>
    call(`${bank.baseUrl}${path}`, { ca: bank.caPem, identity: bank.customer, token, ...init });
  const rec = (loc: number, politicaRetentativa = "PERMITE_3R_7D") =>
    api("/rec", {
      method: "POST",
      json: {
        vinculo: {
          contrato: "CONTRATO-1",
          devedor: { cpf: "52998224725", nome: "Carla Souza" },
          objeto: "Mensalidade",
        },
        calendario: { dataInicial: dateAfter(5), periodicidade: "MENSAL" },
        valor: { valorRec: "49.90" },
        politicaRetentativa,
        loc,
      },
    });
  const cobr = (
    txid: string,
    idRec: string,
    dueDate: string,
    account = bank.recurrences.accountOf(bank.customer.clientId),
  ) => {
    const [agencia, conta, tipoConta] = account.split("/");
    return api(`/cobr/${txid}`, {
      method: "PUT",
      json: {
        idRec,
        calendario: { dataDeVencimento: dueDate },
        valor: { original: "49.90" },
        ajusteDiaUtil: false,
        recebedor: { agencia, conta, tipoConta },
      },
    });
  };
  const approvedRec = async (policy?: string) => {
    const loc = await api("/locrec", { method: "POST" });
    expect(loc.status).toBe(201);
    const made = await rec(loc.body.id, policy);
    expect(made.status).toBe(201);
    bank.recurrences.approve(made.body.idRec);
    return made.body.idRec as string;
  };

  beforeAll(async () => {
    bank = await startFakeBank({ customer: { keys: [KEY] } });
    other = bank.addCustomer({ name: "Outra Loja" });
    token = await tokenFor(bank.tokenUrl, bank.caPem, bank.customer);
    otherToken = await tokenFor(bank.tokenUrl, bank.caPem, other);
  });
  afterAll(async () => {
    await bank?.close();
  });
  // Whatever a test asked, every answer of the bank was within the vendored document.
  afterEach(() => {
    expect(bank.requests().filter((r) => r.responseValid === false)).toEqual([]);
  });

  test("when a location is used by a second recurrence, then it is refused; the first reads back on it", async () => {
    const loc = await api("/locrec", { method: "POST" });
    expect(loc.status).toBe(201);
    expect(loc.body.location).toMatch(/^localhost:\d+\/qr\/v2\/rec\/[0-9a-f]{32}$/);
    const first = await rec(loc.body.id);
    expect(first.status).toBe(201);
    expect(first.body.idRec).toMatch(/^RR99999999\d{8}\w{11}$/);
    expect(first.body.status).toBe("CRIADA");
    const second = await rec(loc.body.id);
    expect(second.status).toBe(400);
    expect(second.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida");
    expect((await api(`/locrec/${loc.body.id}`)).body.idRec).toBe(first.body.idRec);
    // The journey 2 QR of the recurrence, with its location in field 80.
    const read = await api(`/rec/${first.body.idRec}`);
    expect(read.body.dadosQR.jornada).toBe("JORNADA_2");
    expect(read.body.dadosQR.pixCopiaECola).toContain(loc.body.location);
    // Another customer does not see it.
    expect((await api(`/rec/${first.body.idRec}`, { identity: other, token: otherToken })).status).toBe(404);
  });

  test("when a cobr breaks the rules, then it is refused; a valid one is ATIVA with its attempt scheduled", async () => {
    const created = await api("/locrec", { method: "POST" });
    const waiting = await rec(created.body.id);
    expect((await cobr(newTxid(), waiting.body.idRec, dateAfter(5))).status).toBe(400); // not approved
    const idRec = await approvedRec();
    expect((await cobr(newTxid(), idRec, dateAfter(1))).status).toBe(400); // less than 2 days ahead
    expect((await cobr(newTxid(), idRec, dateAfter(11))).status).toBe(400); // more than 10
    expect((await cobr(newTxid(), idRec, dateAfter(5), "0001/0000000/CORRENTE")).status).toBe(400); // not its account
    const txid = newTxid();
    const made = await cobr(txid, idRec, dateAfter(5));
    expect(made.status).toBe(201);
    expect(made.body.status).toBe("ATIVA");
    expect((await cobr(newTxid(), idRec, dateAfter(5))).status).toBe(400); // the same cycle again
    expect((await cobr(txid, idRec, dateAfter(6))).status).toBe(400); // the txid in use
    const read = await api(`/cobr/${txid}`);
    expect(read.body.tentativas).toMatchObject([{ dataLiquidacao: dateAfter(5), tipo: "AGND", status: "AGENDADA" }]);
  });

  test("when an attempt is refused for want of balance, then a retry is taken once, only under PERMITE_3R_7D", async () => {
    const idRec = await approvedRec();
    const txid = newTxid();
    expect((await cobr(txid, idRec, dateAfter(3))).status).toBe(201);
    expect((await api(`/cobr/${txid}/retentativa/${dateAfter(4)}`, { method: "POST" })).status).toBe(400); // one pending
    bank.recurrences.setPayerFunds({ insufficient: true });
    expect(bank.recurrences.runDate(dateAfter(3))).toBeGreaterThanOrEqual(1);
    bank.recurrences.setPayerFunds({ insufficient: false });
    const failed = await api(`/cobr/${txid}`);
    expect(failed.body.tentativas[0]).toMatchObject({ status: "REJEITADA", rejeicao: { codigo: "AM04" } });
    const retried = await api(`/cobr/${txid}/retentativa/${dateAfter(4)}`, { method: "POST" });
    expect(retried.status).toBe(201);
    expect(retried.body.tentativas[1]).toMatchObject({ dataLiquidacao: dateAfter(4), status: "AGENDADA" });
    expect((await api(`/cobr/${txid}/retentativa/${dateAfter(5)}`, { method: "POST" })).status).toBe(400);

    const noRetries = await approvedRec("NAO_PERMITE");
    const other = newTxid();
    expect((await cobr(other, noRetries, dateAfter(3))).status).toBe(201);
    bank.recurrences.setPayerFunds({ insufficient: true });
    bank.recurrences.runDate(dateAfter(3));
    bank.recurrences.setPayerFunds({ insufficient: false });
    expect((await api(`/cobr/${other}/retentativa/${dateAfter(4)}`, { method: "POST" })).status).toBe(400);
  });
});
