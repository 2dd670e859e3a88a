import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../harness.js";

// The Pix Automático quickstart (docs/recurring-pix.md), run as written (bash, curl, jq and GNU date) against a
// test server: only the address changes. From creation to the third paid cycle, then the payer's
// cancellation, every step answers what its comment says.

const run = promisify(execFile);
const page = readFileSync(new URL("../../../docs/recurring-pix.md", import.meta.url), "utf8");
const section = page.slice(page.indexOf("## Início rápido: uma assinatura com Pix Automático"));
const script = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1] ?? "";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("when the docs' subscription quickstart runs as written, then the subscription is approved, retried, paid three cycles and cancelled, and every event is listed", async () => {
  expect(script).toContain("API=http://127.0.0.1:3000/api/v1");
  const { testKey } = await server.newAccount();

  const { stdout } = await run(
    "bash",
    ["-euo", "pipefail", "-c", script.replace("http://127.0.0.1:3000", server.baseUrl)],
    {
      env: { ...process.env, KEY: testKey },
      timeout: 60_000,
    },
  );

  const lines = stdout.trim().split("\n");
  expect(lines.slice(0, 4)).toEqual([
    "CREATED",
    expect.stringMatching(/^https:\/\/pix\.example\.test\/checkout\/recurrences\/rec_\w+$/),
    "PAID",
    "APPROVED",
  ]);
  const settled = lines.filter((l) => l.startsWith('{"status"'));
  expect(settled.map((l) => JSON.parse(l).status)).toEqual(["WAITING_PAYMENT", "PAID", "PAID", "PAID"]);
  expect(JSON.parse(settled[0] as string).attempts).toEqual([
    expect.stringMatching(/ FAILED AM04$/),
    expect.stringMatching(/ SCHEDULED $/),
  ]);
  expect(lines).toContain('{"requestedBy":"PAYER","code":"SLDB","reason":"Autorização cancelada pelo pagador."}');
  expect(lines.filter((l) => /^txn_\w+ \S+ PAID$/.test(l))).toHaveLength(4);
  expect(lines.slice(-11)).toEqual([
    "recurrence.cancelled",
    "transaction.paid",
    "recurring_charge.created",
    "transaction.paid",
    "recurring_charge.created",
    "transaction.paid",
    "recurring_charge.retrying",
    "recurring_charge.created",
    "recurrence.approved",
    "transaction.paid",
    "recurrence.created",
  ]);
});
