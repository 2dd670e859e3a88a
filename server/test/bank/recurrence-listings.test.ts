import { afterAll, beforeAll, expect, test } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";
import type { BankClient } from "../../src/bank/client.js";
import { parseBankAccount, withRecurrences, type BankAccountNumber } from "../../src/bank/recurrences.js";
import type { RecurrenceBank } from "../../src/domain/ports/recurrence-bank.js";
import { closeBankWithClient, startBankWithClient } from "../support/fake-bank-credentials.js";
import { dateAfter } from "../support/recurrences.js";

// The listings the recurrences' reconciler reads (record 0054): `GET /rec` and `GET /cobr` by
// creation instant, paged, through the adapter (server/src/bank/recurrences.ts) against the fake
// bank, every request and answer checked against the Central Bank's document.

const brasiliaToday = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

let bank: FakeBank;
let client: BankClient;
let recs: RecurrenceBank;

beforeAll(async () => {
  ({ bank, client } = await startBankWithClient({}, { timeoutMs: 5_000 }));
  const account = parseBankAccount(bank.recurrences.accountOf(bank.customer.clientId)) as BankAccountNumber;
  recs = withRecurrences(client, account).recurrences as RecurrenceBank;
});
afterAll(() => closeBankWithClient({ bank, client }));

/** `count` recurrences registered at the bank (journey 2), ten at a time: their ids. */
async function registered(count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, async (_, i) => {
      const location = await recs.createLocation();
      const rec = await recs.createRecurrence({
        locationId: location.id,
        initialTxid: null,
        contract: `${prefix}-${start + i}`,
        description: "Mensalidade",
        payer: { name: "Fulano de Tal", documentType: "CPF", document: "12345678909" },
        periodicity: "MONTHLY",
        firstDate: dateAfter(brasiliaToday(), 5),
        lastDate: null,
        amountCents: 1_000,
        minimumAmountCents: null,
        retries: false,
      });
      return rec.recId;
    });
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

const everyRequestValid = () =>
  expect(bank.requests().filter((r) => !r.requestValid || r.responseValid === false)).toEqual([]);

test("when the bank holds more recurrences than a page, then the listing's pages give each once, and only those created in the window", async () => {
  const from = new Date(Date.now() - 1_000).toISOString();
  const ids = await registered(101, "LISTA");
  const window = { from, to: new Date(Date.now() + 1_000).toISOString() };
  const first = await recs.listRecurrences(window, 0);
  const second = await recs.listRecurrences(window, 1);
  expect([first.items.length, first.pages, second.items.length, second.pages]).toEqual([100, 2, 1, 2]);
  expect(new Set([...first.items, ...second.items].map((r) => r.recId))).toEqual(new Set(ids));
  expect(first.items.every((r) => r.status === "CRIADA" && r.copyPaste === null)).toBe(true);

  const before = await recs.listRecurrences({ from: "2026-01-01T00:00:00Z", to: from }, 0);
  expect([before.items.length, before.pages]).toEqual([0, 1]);
  const backwards = await recs.listRecurrences({ from: window.to, to: from }, 0);
  expect([backwards.items.length, backwards.pages]).toEqual([0, 1]);
  everyRequestValid();
});

test("when cycle charges are made and debited, then the listing shows each with its attempts as the bank holds them", async () => {
  const from = new Date(Date.now() - 1_000).toISOString();
  const [a, b] = await registered(2, "COBR");
  const txids = ["svclistagem0000000000000000001", "svclistagem0000000000000000002"];
  for (const [i, recId] of [a, b].entries()) {
    bank.recurrences.approve(recId as string);
    await recs.registerCycleCharge({
      txid: txids[i] as string,
      recId: recId as string,
      dueDate: dateAfter(brasiliaToday(), 5),
      amountCents: 1_000,
      adjustToBusinessDay: true,
      description: "Ciclo",
    });
  }
  const window = () => ({ from, to: new Date(Date.now() + 1_000).toISOString() });
  const listed = await recs.listCycleCharges(window(), 0);
  expect(listed.items.map((c) => [c.txid, c.status, c.attempts.map((t) => t.status)])).toEqual([
    [txids[0], "ATIVA", ["AGENDADA"]],
    [txids[1], "ATIVA", ["AGENDADA"]],
  ]);
  const date = listed.items[0]?.attempts[0]?.date as string;
  expect(bank.recurrences.runDate(date)).toBe(2);
  const debited = await recs.listCycleCharges(window(), 0);
  expect(debited.items.map((c) => [c.status, c.attempts.map((t) => t.status)])).toEqual([
    ["CONCLUIDA", ["PAGA"]],
    ["CONCLUIDA", ["PAGA"]],
  ]);
  const held = bank.recurrences.list().cobrs.find((c) => c.txid === txids[0]);
  expect(debited.items[0]?.attempts[0]?.endToEndId).toBe(held?.tentativas?.[0]?.endToEndId);
  // The first test's 101 recurrences may fall in this window's first second, filling its first
  // page: every page is read, and these two are looked at.
  const listing = window();
  const firstPage = await recs.listRecurrences(listing, 0);
  const pages = [firstPage];
  for (let page = 1; page < firstPage.pages; page++) pages.push(await recs.listRecurrences(listing, page));
  const both = pages.flatMap((p) => p.items).filter((r) => r.recId === a || r.recId === b);
  expect(both.map((r) => r.status)).toEqual(["APROVADA", "APROVADA"]);
  everyRequestValid();
});
