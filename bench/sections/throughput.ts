import { randomBytes, randomUUID } from "node:crypto";
import { freePort } from "../../scripts/pg-cluster.js";
import { startPrism } from "../../scripts/prism.js";
import {
  defaultLoad,
  type LoadOptions,
  type LoadRequest,
  oneRun,
  type Paired,
  pairedRequestsPerSecond,
  requestsPerSecond,
} from "../lib/load.js";
import { pin, type Running, startNode } from "../lib/process.js";
import { serverArgs, startFlags } from "../lib/server.js";

const chargeBody = () =>
  JSON.stringify({
    amountCents: 8990,
    description: "Pedido de bancada",
    customer: {
      name: "Maria da Silva",
      email: "maria@example.com",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
  });

/**
 * The four routes measured on every implementation, with what they need (a key, an existing
 * charge); with `spreadClients`, from many client addresses (the deployed path's rate limits).
 */
function routes(key: string, chargeId: string, spreadClients = false): Record<string, LoadRequest> {
  const headers = { "x-api-key": key };
  return {
    "GET /transactions/{id}": { path: `/api/v1/transactions/${chargeId}`, headers, spreadClients },
    "GET /transactions (20)": { path: "/api/v1/transactions?limit=20", headers, spreadClients },
    "GET /balance": { path: "/api/v1/balance", headers, spreadClients },
    "POST /charges/pix": { ...createChargeRequest(key), spreadClients },
  };
}

/**
 * The path as deployed: `NODE_ENV=production` with rate limits on, behind one proxy hop whose
 * `X-Forwarded-For` names the client.
 */
const deployedEnv = {
  NODE_ENV: "production",
  TRUST_PROXY: "1",
  ADMIN_TOKEN: "adm_bench_0123456789abcdefghijkl",
  // Production refuses to start without a master key (the secrets at rest, record 0050).
  MASTER_KEYS: `bench:${randomBytes(32).toString("base64")}`,
  PUBLIC_BASE_URL: "https://pix.bench.example",
  LOG_LEVEL: "warn",
};

/** `POST /charges/pix` with a fresh body per request. */
export function createChargeRequest(key: string): LoadRequest {
  return { method: "POST", path: "/api/v1/charges/pix", headers: { "x-api-key": key }, body: chargeBody };
}

/** Each implementation's routes, measured turn about with bare Express (`pairedRequestsPerSecond`). */
export interface Throughput {
  /** Requests per second of the floors, each the median of its own runs. */
  floors: Record<"bare node:http" | "bare Express", number>;
  /** Bare Express on our app's server (`appServer`, record 0065): shown beside the floors, not judged. */
  appServerExpress: number;
  servers: Record<string, Record<string, Paired>>;
}

/** A new test key with every permission for the banner's development account, or null without an operator token. */
async function operatorTestKey(baseUrl: string, banner: string, env: Record<string, string>): Promise<string | null> {
  if (!env.ADMIN_TOKEN) return null;
  const headers = { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" };
  // Production seeds nothing (record 0043): there the bench opens its own account.
  let account = /(acc_[A-Za-z0-9]+)/.exec(banner)?.[1];
  if (!account) {
    const opened = await fetch(`${baseUrl}/admin/v1/accounts`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Loja do Bench", ownerEmail: "bench@loja.example.com.br" }),
    });
    if (opened.status !== 201) throw new Error(`operator account: ${opened.status} ${await opened.text()}`);
    account = ((await opened.json()) as { id: string }).id;
  }
  const res = await fetch(`${baseUrl}/admin/v1/accounts/${account}/api-keys`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "bench", mode: "test" }),
  });
  if (res.status !== 201) throw new Error(`operator key: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

/** Starts our server (memory or PostgreSQL), makes 25 charges so lists have a page, and hands back what the routes need. */
export async function startOurServer(
  env: Record<string, string>,
  extra: Record<string, string> = {},
  options: { cpu?: number | null; readyPath?: string } = {},
) {
  const port = await freePort();
  // The production request path, with rate limits off unless `env` is the deployed one
  // (`deployedEnv`): one IP under load would spend its budget in a second.
  const deployed = env.NODE_ENV === "production";
  const server = await startNode(serverArgs(), {
    port,
    env: { ...(deployed ? {} : { RATE_LIMITS: "off" }), ...env, ...extra },
    ...options,
  });
  // The banner's development test key (its wording is the server's; the key's shape is the API's).
  // With several processes the primary prints it once every one has started.
  const devKey = () => /(svc_test_[A-Za-z0-9]+)/.exec(server.output())?.[1];
  // Production prints no key (it seeds nothing): no wait for one there.
  for (let waited = 0; !deployed && !devKey() && waited < 30_000; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
  }
  // A database that already has accounts (the deployed run after the plain one) prints no key:
  // one is made through the operator API, for the development account the banner names.
  const key = devKey() ?? (await operatorTestKey(server.baseUrl, server.output(), { ...env, ...extra }));
  if (!key) {
    await server.stop();
    throw new Error(`no development key printed:\n${server.output()}`);
  }
  let chargeId = "";
  for (let i = 0; i < 25; i++) {
    const res = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: chargeBody(),
    });
    if (res.status !== 201) throw new Error(`create charge: ${res.status} ${await res.text()}`);
    chargeId = ((await res.json()) as { id: string }).id;
  }
  return { server, key, chargeId };
}

async function measureRoutes(
  baseUrl: string,
  key: string,
  chargeId: string,
  baseline: () => Promise<number>,
  load: LoadOptions,
  spreadClients = false,
) {
  const out: Record<string, Paired> = {};
  for (const [name, request] of Object.entries(routes(key, chargeId, spreadClients))) {
    out[name] = await pairedRequestsPerSecond(baseline, baseUrl, request, load);
  }
  return out;
}

/** The deployed PostgreSQL server measured again with the database free to run on either core. */
export const databaseOnEitherCore = "ours, PostgreSQL, deployed, database on either core";

/**
 * Requests per second of bare node:http, bare Express, the Prism mock and our server on each store,
 * each server alone on core 0 and the load generator on core 1. Bare Express stays up throughout:
 * every run of a route is paired with a run of it just before, and the ratio is of the pair.
 */
export async function measureThroughput(
  databaseUrl: string | null,
  load: LoadOptions = defaultLoad,
  /** A fresh database for the deployed PostgreSQL server. */
  deployedDatabase?: () => Promise<string>,
  /**
   * Puts the PostgreSQL cluster on the given cores (`"1"`, the load's, as the bench runs it; `"0,1"`,
   * either). With it, the deployed list is measured a second time with the database on either
   * core, the server's included (issue 34 §2: the list target holds in both placements).
   */
  placeDatabase?: (cpus: string) => void,
): Promise<Throughput> {
  pin(process.pid, 1);
  const floorRequest: LoadRequest = { path: "/api/v1/balance" };
  /** A bare target of bench/targets/ measured alone, then stopped: its requests per second. */
  const measuredAlone = async (target: string): Promise<number> => {
    const node = await startNode([...startFlags(), "--import", "tsx", target], {
      port: await freePort(),
      readyPath: "/",
    });
    try {
      return await requestsPerSecond(node.baseUrl, floorRequest, load);
    } finally {
      await node.stop();
    }
  };
  const bareHttp = await measuredAlone("bench/targets/bare-http.ts");
  const appServerExpress = await measuredAlone("bench/targets/bare-express-app-server.ts");

  const express = await startNode([...startFlags(), "--import", "tsx", "bench/targets/bare-express.ts"], {
    port: await freePort(),
    readyPath: "/",
  });
  try {
    const result: Throughput = {
      floors: {
        "bare node:http": bareHttp,
        "bare Express": await requestsPerSecond(express.baseUrl, floorRequest, load),
      },
      appServerExpress,
      servers: {},
    };
    const baseline = () => oneRun(express.baseUrl, floorRequest, load);

    const prism = await startPrism({ port: await freePort(), document: "generated/openapi.yaml" });
    pin(prism.pid, 0);
    try {
      result.servers["Prism mock"] = await measureRoutes(
        prism.baseUrl,
        "svc_test_bench",
        "txn_4Fq9ZtR2mXwP8LkA3cD7",
        baseline,
        load,
      );
    } finally {
      await prism.stop();
    }

    /** Each server measured: its name, environment, and the cores its database runs on (default: the load's). */
    const stores: { name: string; env: Record<string, string>; databaseCores?: string }[] = [
      { name: "ours, memory", env: {} },
    ];
    if (databaseUrl) stores.push({ name: "ours, PostgreSQL", env: { DATABASE_URL: databaseUrl } });
    stores.push({ name: "ours, memory, deployed", env: deployedEnv });
    if (databaseUrl) {
      stores.push({ name: "ours, PostgreSQL, deployed", env: { ...deployedEnv, DATABASE_URL: databaseUrl } });
      if (deployedDatabase && placeDatabase) {
        stores.push({
          name: databaseOnEitherCore,
          env: { ...deployedEnv, DATABASE_URL: databaseUrl },
          databaseCores: "0,1",
        });
      }
    }
    for (const { name, env: given, databaseCores } of stores) {
      let running: Running | undefined;
      const env =
        given.DATABASE_URL && given.NODE_ENV === "production" && deployedDatabase
          ? { ...given, DATABASE_URL: await deployedDatabase() }
          : given;
      if (databaseCores) placeDatabase?.(databaseCores);
      try {
        const { server, key, chargeId } = await startOurServer(env);
        running = server;
        const spread = env.NODE_ENV === "production";
        result.servers[name] = await measureRoutes(server.baseUrl, key, chargeId, baseline, load, spread);
      } finally {
        await running?.stop();
        if (databaseCores) placeDatabase?.("1");
      }
    }
    return result;
  } finally {
    await express.stop();
  }
}
