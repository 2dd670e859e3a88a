import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { createDatabase, dropDatabase, findPostgresBin, freePort } from "../../scripts/pg-cluster.js";
import { createApiKey } from "../../server/src/domain/accounts/index.js";
import { createPool, migrateDatabase, PostgresStore } from "../../server/src/store/postgres/index.js";
import type { Store } from "../../server/src/domain/ports/store.js";
import { chargeBody, startTestServer, type TestServer } from "../../server/test/harness.js";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { listensOn } from "../../server/test/support/server-process.js";
import { leaseTestCluster } from "../../server/test/support/shared-cluster.js";
import type { Target } from "./targets.js";

/**
 * No fixed port: the reference servers listen on a port the system picks, and Prism (which needs a
 * number) on one that was free a moment before, checked to be its own once it answers, and tried
 * again on another port otherwise. So two runs on one machine never collide.
 */
async function startPrismOnFreePort(options: { document: string; proxy?: string }): Promise<RunningPrism> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      const prism = await startPrism({ ...options, port });
      // Someone else's server on that port would have answered the readiness probe too.
      if ((await listensOn(prism.listenerPid, port)) !== false) return prism;
      await prism.stop();
      lastError = new Error(`port ${port} was taken by another process`);
    } catch (error) {
      lastError = error; // the port was taken before Prism bound it: try another one
    }
  }
  throw new Error(`could not start Prism on a free port: ${String(lastError)}`);
}

/** Two distinct ports that were free a moment ago, for the proxy check's own fake upstream and Prism. */
async function twoFreePorts(): Promise<{ fakeUpstream: number; fakeProxy: number }> {
  const fakeUpstream = await freePort();
  let fakeProxy = await freePort();
  while (fakeProxy === fakeUpstream) fakeProxy = await freePort();
  return { fakeUpstream, fakeProxy };
}

/**
 * A reference server on `store`, seeded with an account whose test balance has money available
 * (so withdrawals can succeed) and a key with no permission. The server checks no answer itself:
 * the suite checks every answer against the document (`checkResponse`), and so does
 * `prism proxy --errors` in the differential part.
 */
async function referenceTarget(
  name: string,
  store?: Store,
): Promise<{ target: Target; server: TestServer; stop: () => Promise<void> }> {
  const server = await startTestServer(store ? { store } : {});
  const seeded = await server.newAccount({ name: "Loja Contrato Ltda" });
  const none = await server.store.transaction((tx) =>
    createApiKey(
      tx,
      seeded.account,
      { name: "none", livemode: false, permissions: [] },
      server.clock.now().toISOString(),
    ),
  );
  const charge = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
    method: "POST",
    headers: { "x-api-key": seeded.testKey, "content-type": "application/json" },
    body: JSON.stringify(chargeBody({ amountCents: 500_000 })),
  }).then((r) => r.json() as Promise<{ id: string }>);
  await fetch(`${server.baseUrl}/api/v1/sandbox/transactions/${charge.id}/pay`, {
    method: "POST",
    headers: { "x-api-key": seeded.testKey },
  });
  server.clock.advance(2 * 86_400);
  const box = await mailbox(server);
  return {
    server,
    target: {
      name,
      baseUrl: server.baseUrl,
      real: true,
      keys: { full: seeded.testKey, none: none.secret, live: seeded.liveKey as string },
      dashboard: { baseUrl: server.baseUrl, viewer: await viewerSession(server), mailbox: box.url },
    },
    stop: async () => {
      await box.close();
      await server.close();
    },
  };
}

/**
 * The mailbox of the people a target's tests sign up: a loopback server answering the token of the
 * last e-mail link sent to an address (`GET /?to=…` → `{ token }`, 404 when none), so a test
 * confirms an e-mail with the link the person received, as the person would.
 */
async function mailbox(server: TestServer): Promise<{ url: string; close: () => Promise<void> }> {
  const box = createServer((req, res) => {
    const to = new URL(req.url ?? "/", "http://mailbox").searchParams.get("to");
    const mail = server.mail.filter((m) => m.to === to).at(-1);
    const token = mail && /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    res.writeHead(token ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify({ token }));
  });
  await new Promise<void>((done) => box.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(box.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((done) => box.close(() => done())),
  };
}

/**
 * A viewer's session: a person signed up, then moved into another merchant's account with the role
 * `viewer` (as accepting an invitation would), and logged in there, through the domain.
 */
async function viewerSession(server: TestServer): Promise<{ token: string; csrf: string }> {
  const client = { ip: "127.0.0.1", userAgent: "contract" };
  const password = "senha do leitor do contrato";
  const stamp = `${process.pid}.${Date.now()}`;
  const owner = await server.domain.users.signUp(
    { name: "Dona Contrato", email: `dona.${stamp}@loja.example.com.br`, password, businessName: "Loja Contrato" },
    client,
  );
  const email = `leitor.${stamp}@loja.example.com.br`;
  const viewer = await server.domain.users.signUp(
    { name: "Leitor Contrato", email, password, businessName: "Conta Provisória" },
    client,
  );
  await server.store.transaction((tx) =>
    tx.users.update({ ...viewer.user, accountId: owner.account.id, role: "viewer" }),
  );
  const session = await server.domain.sessions.logIn({ email, password }, client);
  return { token: session.token, csrf: session.csrfToken };
}

/** The reference server on PostgreSQL: a database of its own on `adminUrl`, migrated. */
async function postgresTarget(adminUrl: string) {
  const name = `pix_contract_${Date.now()}`;
  const url = await createDatabase(adminUrl, name);
  await migrateDatabase(url);
  const store = new PostgresStore(createPool(url, { max: 5 }));
  const postgres = await referenceTarget("postgres", store);
  return {
    target: postgres.target,
    stop: async () => {
      await postgres.stop();
      await store.close();
      await dropDatabase(adminUrl, name);
    },
  };
}

/**
 * Each of `starts` at once (they need nothing of each other: the setup is a wait before the run's
 * first test); when one fails, what the others started is stopped before the failure is thrown.
 */
async function startAll<T extends { stop: () => Promise<void> }[]>(starts: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<T[number]>).value) as T;
  for (const s of settled) if (s.status === "fulfilled") await s.value.stop().catch(() => undefined);
  throw failed.reason;
}

/**
 * Starts every target once for the whole suite: the Prism mocks (the public document's and the
 * dashboard's, each on its own port), the reference server on the memory store, and on PostgreSQL
 * (DATABASE_URL, or the run's throwaway cluster when the server binaries exist,
 * server/test/support/shared-cluster.ts; otherwise that target is skipped and says so), then the
 * validating proxy in front of the memory server. What needs nothing of the rest starts at once.
 * Adding a target is one entry.
 */
export default async function setup(project: TestProject) {
  const stops: Array<() => Promise<void>> = [];
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl && (await findPostgresBin())) {
    const cluster = await leaseTestCluster();
    stops.push(() => cluster.release());
    adminUrl = cluster.adminUrl;
  }
  const noPostgres = { target: null, stop: async () => undefined };
  // Stopped in this order: the servers before the cluster they use.
  const stopAll = async () => {
    for (const stop of stops) await stop();
  };
  const [prism, dashboardPrism, memory, postgres] = await startAll([
    startPrismOnFreePort({ document: "generated/openapi.yaml" }),
    startPrismOnFreePort({ document: "generated/dashboard-openapi.yaml" }),
    referenceTarget("memory"),
    adminUrl ? postgresTarget(adminUrl) : Promise.resolve(noPostgres),
  ]).catch(async (error: unknown) => {
    await stopAll();
    throw error;
  });
  stops.unshift(
    () => postgres.stop(),
    () => prism.stop(),
    () => dashboardPrism.stop(),
    () => memory.stop(),
  );
  // Every response of the memory server that goes through this proxy is validated by Prism.
  const proxy = await startPrismOnFreePort({ document: "generated/openapi.yaml", proxy: memory.target.baseUrl }).catch(
    async (error: unknown) => {
      await stopAll();
      throw error;
    },
  );
  stops.unshift(() => proxy.stop());
  const targets: Target[] = [
    {
      name: "mock",
      baseUrl: prism.baseUrl,
      real: false,
      keys: { full: "svc_test_mock", none: "svc_test_mock_none", live: "svc_mock_live" },
      dashboard: {
        baseUrl: dashboardPrism.baseUrl,
        viewer: { token: "sessaodeleitornomock000000000000000000000000", csrf: "csrf-do-mock" },
      },
    },
    memory.target,
  ];
  if (postgres.target) targets.push(postgres.target);
  else console.warn("contract target 'postgres' SKIPPED: no DATABASE_URL and no PostgreSQL server binaries");

  project.provide("targets", targets);
  project.provide("proxy", { baseUrl: proxy.baseUrl, upstream: memory.target.name });
  project.provide("ports", await twoFreePorts());
  project.provide("postgresAdminUrl", adminUrl ?? null);
  return stopAll;
}
