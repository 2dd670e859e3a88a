/**
 * The bank section's measurements (bench/sections/bank.ts starts this file in a process of its
 * own, in a network namespace of its own when it can): the built server as deployed, connected
 * to the fake bank answering after a fixed 50 ms through the operator API, on each store the
 * parent names. Prints one line `BANK-RESULT <json>` (a `BankResult` per store).
 *
 * Environment: BENCH_BANK_STORES (JSON `[{ name, databaseUrl? }]`), BENCH_BANK_QUICK (`1`),
 * BENCH_SERVER_ENTRY (the run's build, bench/lib/server.ts),
 * BENCH_BANK_PUBLIC_ADDRESS (a public unicast address on this namespace's loopback, where the
 * merchant's webhook receiver listens; unset, the callback measurement is skipped: a production
 * endpoint must be public, and the server refuses loopback for it).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request as undiciRequest } from "undici";
import { startFakeBank, type FakeBank } from "../../fake-bank/src/bank.js";
import { createCertificateAuthority } from "../../fake-bank/src/certs.js";
import { percentile, spread } from "../lib/load.js";
import { cpuMsOf, pin, pool, type Running } from "../lib/process.js";
import { json, startServerAtBank } from "../lib/at-bank.js";

export interface BankResult {
  store: string;
  creates: {
    concurrency: number;
    count: number;
    p50Ms: number;
    /** p50 over the creates of (create time − the fake bank's time for that create's PUT /cob). */
    addedP50Ms: number;
    /** p50 of direct PUT /cob calls to the fake bank at the same concurrency, in the same run. */
    directP50Ms: number;
    statuses: Record<string, number>;
    pending: number;
    /** CPU of the server process and of this one (the load and the fake bank), per create. */
    serverMsPerCreate: number;
    benchMsPerCreate: number;
    bankCallsPerCreate: number;
    createsPerSecond: number;
  };
  /** Null when no public address was available for the merchant's receiver. */
  callback: { count: number; p50Ms: number; p95Ms: number; missing: number } | null;
  reconcile: {
    payments: number;
    seconds: number;
    credited: number;
    pages: number;
    createsPerSecond: number;
    /** Creates of the set-up that were not 201 (or unanswered in 30 s): not paid. */
    failedCreates: number;
  } | null;
  loadAverage: number;
}

const quick = process.env.BENCH_BANK_QUICK === "1";
const publicAddress = process.env.BENCH_BANK_PUBLIC_ADDRESS || null;
const adminToken = `adm_bench_${randomBytes(16).toString("hex")}`;
const concurrency = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Created {
  id: string;
  status: number;
  ms: number;
  chargeStatus: string;
  copyPaste: string;
  /** What a payment credits to the balance (the amount less the fee). */
  netCents: number;
  /** The answer's body when it was not 201. */
  error?: string;
}

async function measureStore(
  store: { name: string; databaseUrl?: string },
  files: { dir: string; listenerCert: string; listenerKey: string; extraCa: string },
  certs: { listenerCaPem: string; receiverCert: { certPem: string; keyPem: string } },
): Promise<BankResult> {
  const bank: FakeBank = await startFakeBank({ latencyMs: 50, webhookCa: certs.listenerCaPem });
  let server: Running | undefined;
  const receiver = createHttpsServer({ cert: certs.receiverCert.certPem, key: certs.receiverCert.keyPem });
  const arrivals = new Map<string, number>();
  receiver.on("request", (req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const at = performance.now();
      try {
        const event = JSON.parse(body) as { type: string; data: { object: { id: string } } };
        if (event.type === "transaction.paid") arrivals.set(event.data.object.id, at);
      } catch {
        // Not an event: answered all the same.
      }
      res.writeHead(200).end();
    });
  });
  try {
    const connected = await startServerAtBank({
      bank,
      dialect: "standard",
      adminToken,
      files,
      databaseUrl: store.databaseUrl,
      // BENCH_BANK_SERVER_FLAGS: node flags for the server beside `npm start`'s (`--cpu-prof` to profile it).
      flags: process.env.BENCH_BANK_SERVER_FLAGS,
      env: {
        // The reconciler's interval only decides when a run starts, not how long it takes.
        PIX_BANK_RECONCILE_SECONDS: "10",
        // The merchant's receiver presents a certificate of the bench's own CA.
        NODE_EXTRA_CA_CERTS: files.extraCa,
      },
    });
    server = connected.server;
    const { admin } = connected;
    const base = server.baseUrl;

    const openAccount = async (name: string) => {
      const account = await json(
        await admin("POST", "/accounts", {
          name,
          ownerEmail: `${randomUUID().slice(0, 8)}@loja.example.com.br`,
          verified: true,
          releasePeriodDays: 0,
        }),
        201,
        "account",
      );
      const key = await json(
        await admin("POST", `/accounts/${account.id}/api-keys`, { name: "bench", mode: "production" }),
        201,
        "live key",
      );
      return { id: account.id, key: key.secret as string };
    };
    const create = async (key: string): Promise<Created> => {
      const t = performance.now();
      const answer = fetch(`${base}/api/v1/charges/pix`, {
        method: "POST",
        headers: {
          "x-api-key": key,
          "content-type": "application/json",
          ...spread(),
        },
        body: JSON.stringify({
          amountCents: 8990,
          description: "Pedido de bancada",
          customer: {
            name: "Maria da Silva",
            email: "maria@example.com",
            phone: "11987654321",
            documentType: "CPF",
            document: "52998224725",
          },
        }),
        signal: AbortSignal.timeout(30_000),
      }).then(async (res) => ({ res, text: await res.text() }));
      // No answer within 30 s is counted (status 0), not thrown: it is what the section looks for.
      const settled = await answer.catch((error: Error) => ({ res: null, text: String(error) }));
      const ms = performance.now() - t;
      const none = { id: "", ms, chargeStatus: "", copyPaste: "", netCents: 0 };
      if (settled.res === null) return { ...none, status: 0, error: settled.text };
      const { res, text } = settled;
      if (res.status !== 201) return { ...none, status: res.status, error: text };
      const body = JSON.parse(text) as {
        id: string;
        status: string;
        netAmountCents: number;
        pix: { copyPaste: string };
      };
      return {
        id: body.id,
        status: 201,
        ms,
        chargeStatus: body.status,
        copyPaste: body.pix.copyPaste,
        netCents: body.netAmountCents,
      };
    };
    const read = async (key: string, id: string) =>
      (await json(
        await fetch(`${base}/api/v1/transactions/${id}`, { headers: { "x-api-key": key, ...spread() } }),
        200,
        "read charge",
      )) as unknown as { status: string; pix: { copyPaste: string } };

    // 1. Creates at 200 at once, after a round of warm-up.
    const a = await openAccount("Loja do Bench A");
    await pool(concurrency, concurrency, () => create(a.key));
    const count = quick ? 600 : 2_000;
    const logBefore = bank.requests().length;
    const serverCpuBefore = cpuMsOf(server.pid);
    const benchCpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const created = await pool(count, concurrency, () => create(a.key));
    const wall = performance.now() - wallBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const cpu = {
      serverMsPerCreate: (cpuMsOf(server.pid) - serverCpuBefore) / count,
      benchMsPerCreate: (benchCpu.user + benchCpu.system) / 1000 / count,
      bankCallsPerCreate: (bank.requests().length - logBefore) / count,
      createsPerSecond: count / (wall / 1000),
    };
    const bankMs = new Map<string, number>();
    for (const entry of bank.requests()) {
      const txid = /\/cob\/([A-Za-z0-9]+)$/.exec(entry.path)?.[1];
      if (entry.method === "PUT" && txid && entry.ms !== undefined) bankMs.set(txid, entry.ms);
    }
    const refusal = created.find((c) => c.status !== 201);
    if (refusal) console.error(`bank bench: a create answered ${refusal.status} ${refusal.error}`);
    const statuses: Record<string, number> = {};
    for (const c of created) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
    const added = created.flatMap((c) => {
      const atBank = c.chargeStatus === "WAITING_PAYMENT" ? bankMs.get(`svc${c.id.replace("_", "")}`) : undefined;
      return atBank === undefined ? [] : [c.ms - atBank];
    });

    // The same number of PUT /cob calls straight to the fake bank, at the same concurrency, over
    // a mutual-TLS pool as the server's.
    const agent = new Agent({
      connections: 256,
      connect: { ca: bank.caPem, cert: bank.customer.certPem, key: bank.customer.keyPem },
    });
    const tokenAnswer = await undiciRequest(bank.tokenUrl, {
      method: "POST",
      dispatcher: agent,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${bank.customer.clientId}:${bank.customer.clientSecret}`).toString("base64")}`,
      },
      body: "grant_type=client_credentials",
    });
    const token = ((await tokenAnswer.body.json()) as { access_token: string }).access_token;
    const direct = async () => {
      const t = performance.now();
      const res = await undiciRequest(`${bank.baseUrl}/cob/bench${randomBytes(12).toString("hex")}`, {
        method: "PUT",
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          calendario: { expiracao: 3600 },
          devedor: { cpf: "52998224725", nome: "Maria da Silva" },
          valor: { original: "89.90" },
          chave: bank.customer.keys[0],
          solicitacaoPagador: "Pedido de bancada",
        }),
      });
      await res.body.text();
      if (res.statusCode !== 201) throw new Error(`direct PUT /cob: ${res.statusCode}`);
      return performance.now() - t;
    };
    await pool(concurrency, concurrency, direct);
    const directTimes = await pool(count, concurrency, direct);
    await agent.close();

    // 2. A callback to the merchant's webhook endpoint as transaction.paid.
    let callback: BankResult["callback"] = null;
    if (publicAddress) {
      await new Promise<void>((r) => receiver.listen(0, publicAddress, r));
      const url = `https://${publicAddress}:${(receiver.address() as AddressInfo).port}/hook`;
      await json(
        await admin("POST", `/accounts/${a.id}/webhook-endpoints`, {
          url,
          mode: "production",
          events: ["transaction.paid"],
        }),
        201,
        "webhook endpoint",
      );
      const payable = created.filter((c) => c.copyPaste !== "");
      const n = quick ? 10 : 40;
      const latencies: number[] = [];
      let missing = 0;
      for (let i = -1; i < n && i + 1 < payable.length; i++) {
        const charge = payable[i + 1] as Created;
        const sent = performance.now();
        const paid = await fetch(`${bank.controlUrl}/pay`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code: charge.copyPaste }),
        });
        if (paid.status !== 201) throw new Error(`pay: ${paid.status} ${await paid.text()}`);
        const deadline = performance.now() + 5_000;
        while (!arrivals.has(charge.id) && performance.now() < deadline) await sleep(2);
        if (i < 0) continue; // the first one opens the connections and is not counted
        const arrived = arrivals.get(charge.id);
        if (arrived === undefined) missing++;
        latencies.push((arrived ?? Infinity) - sent);
      }
      callback = {
        count: latencies.length,
        p50Ms: percentile(latencies, 50),
        p95Ms: percentile(latencies, 95),
        missing,
      };
    }

    // 3. One reconciliation crediting the payments whose callbacks were dropped.
    const b = await openAccount("Loja do Bench B");
    const payments = quick ? 1_000 : 10_000;
    const started = performance.now();
    const many = await pool(payments, concurrency, () => create(b.key));
    const createsPerSecond = payments / ((performance.now() - started) / 1000);
    // A create that failed or went unanswered is counted (`unanswered`), and the others are paid.
    const ok = many.filter((c) => c.status === 201);
    const codes = await pool(ok.length, 20, async (i) => {
      const c = ok[i] as Created;
      for (let tries = 0; c.copyPaste === "" && tries < 600; tries++) {
        const now = await read(b.key, c.id);
        if (now.pix.copyPaste) return now.pix.copyPaste;
        await sleep(200);
      }
      if (c.copyPaste === "") throw new Error(`charge ${c.id} never got its code`);
      return c.copyPaste;
    });
    // Every callback dropped, and every payment made at once (in this process, as one step of the
    // bank: a run of the reconciler sees all of them or none).
    bank.faultCallbacks({ kind: "drop", count: codes.length });
    const { paid, refused } = bank.payMany(codes);
    if (refused.length > 0) throw new Error(`the bank refused ${refused.length} payments: ${refused[0]?.error}`);
    // The run that credits them is the one whose listing has a second page (before, fewer than a
    // page of Pix were in its window); it started at its first page's request. It has credited
    // them all once B's balance holds every payment's net amount (polled: the run's own end,
    // lastReconciliationAt, is not enough, another run may end meanwhile).
    const expectedCents = ok.reduce((n, c) => n + c.netCents, 0);
    const balanceOfB = async () => {
      const body = (await json(
        await fetch(`${base}/api/v1/balance`, { headers: { "x-api-key": b.key, ...spread() } }),
        200,
        "balance",
      )) as unknown as { availableCents: number; pendingCents: number };
      return body.availableCents + body.pendingCents;
    };
    let runStart: number | null = null;
    let pages = 0;
    const deadline = Date.now() + 240_000;
    let credited = 0;
    let seconds = NaN;
    while (Date.now() < deadline) {
      await sleep(100);
      if (runStart === null) {
        const listings = bank.requests().filter((r) => r.method === "GET" && /\/pix\?/.test(r.path));
        const second = listings.findIndex((r) => /paginaAtual=1(&|$)/.test(r.path));
        if (second < 0) continue;
        const first = listings
          .slice(0, second)
          .reverse()
          .find((r) => /paginaAtual=0(&|$)/.test(r.path));
        if (!first) throw new Error("the reconciliation's first page was not logged");
        runStart = Date.parse(first.at);
      }
      if ((await balanceOfB()) >= expectedCents) {
        seconds = (Date.now() - runStart) / 1000;
        const listings = bank.requests().filter((r) => r.method === "GET" && /\/pix\?/.test(r.path));
        // The run's pages: from its first page up to the next run's first page.
        const run = listings.filter((r) => Date.parse(r.at) >= (runStart as number));
        const nextRun = run.findIndex((r, i) => i > 0 && /paginaAtual=0(&|$)/.test(r.path));
        pages = nextRun < 0 ? run.length : nextRun;
        break;
      }
    }
    if (runStart === null || Number.isNaN(seconds)) throw new Error("no reconciliation credited the payments in 240 s");
    // What was credited: B's paid charges, counted page by page.
    let after: string | undefined;
    for (;;) {
      const page = (await json(
        await fetch(`${base}/api/v1/transactions?status=PAID&limit=100${after ? `&startingAfter=${after}` : ""}`, {
          headers: { "x-api-key": b.key, ...spread() },
        }),
        200,
        "list paid",
      )) as unknown as { data: { id: string }[]; hasMore: boolean };
      credited += page.data.length;
      after = page.data.at(-1)?.id;
      if (!page.hasMore || !after) break;
    }
    return {
      store: store.name,
      creates: {
        concurrency,
        count,
        p50Ms: percentile(
          created.map((c) => c.ms),
          50,
        ),
        addedP50Ms: percentile(added, 50),
        directP50Ms: percentile(directTimes, 50),
        statuses,
        pending: created.filter((c) => c.chargeStatus === "PENDING").length,
        ...cpu,
      },
      callback,
      reconcile: {
        payments: paid.length,
        seconds,
        credited,
        pages,
        createsPerSecond,
        failedCreates: many.length - ok.length,
      },
      loadAverage: (await import("node:os")).loadavg()[0] ?? NaN,
    };
  } finally {
    receiver.close();
    await server?.stop();
    await bank.close();
  }
}

const stores = JSON.parse(process.env.BENCH_BANK_STORES ?? '[{"name":"memory"}]') as {
  name: string;
  databaseUrl?: string;
}[];
// This process is the load and the fake bank: on core 1, the server alone on core 0.
pin(process.pid, 1);
const dir = mkdtempSync(join(tmpdir(), "pix-bench-bank-"));
try {
  const ca = createCertificateAuthority("Bench listener CA");
  const listener = ca.issueServer(["127.0.0.1"]);
  const files = {
    dir,
    listenerCert: join(dir, "listener.pem"),
    listenerKey: join(dir, "listener-key.pem"),
    extraCa: join(dir, "ca.pem"),
  };
  writeFileSync(files.listenerCert, listener.certPem);
  writeFileSync(files.listenerKey, listener.keyPem, { mode: 0o600 });
  writeFileSync(files.extraCa, ca.certPem);
  const receiverCert = ca.issueServer([publicAddress ?? "127.0.0.1"]);
  const results: BankResult[] = [];
  for (const store of stores) {
    results.push(await measureStore(store, files, { listenerCaPem: ca.certPem, receiverCert }));
  }
  console.log(`BANK-RESULT ${JSON.stringify(results)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
