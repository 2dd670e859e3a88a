import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPixClient,
  type ErrorBody,
  PixApiError,
  type PixClient,
  paginate,
  type Transaction,
} from "../src/index.js";

const API_KEY = "svc_test_0123456789abcdef";

/** 7 fake transactions, newest first, served 3 per page: pages of 3, 3 and 1. */
const transactions = Array.from({ length: 7 }, (_, i) => ({
  id: `txn_${String(7 - i).padStart(4, "0")}`,
  status: "PAID",
  amountCents: 1000 + i,
}));
const PAGE_SIZE = 3;

interface SeenRequest {
  method: string | undefined;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

function errorBody(code: ErrorBody["code"], message: string, path: string): ErrorBody {
  return { ok: false, code, message, path, timestamp: "2026-10-04T15:30:00.000Z" };
}

describe("paginate", () => {
  let server: Server;
  let baseUrl: string;
  const seen: SeenRequest[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      seen.push({ method: req.method, path: url.pathname, query: url.searchParams, headers: req.headers });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "x-request-id": "req_test_1" });
        res.end(JSON.stringify(body));
      };
      if (req.headers["x-api-key"] !== API_KEY) {
        send(401, errorBody("UNAUTHORIZED", "Chave de API ausente, inválida ou revogada.", url.pathname));
        return;
      }
      if (url.pathname === "/api/v1/transactions") {
        const after = url.searchParams.get("startingAfter");
        const start = after === null ? 0 : transactions.findIndex((t) => t.id === after) + 1;
        const data = transactions.slice(start, start + PAGE_SIZE);
        send(200, { data, hasMore: start + PAGE_SIZE < transactions.length });
        return;
      }
      if (url.pathname === "/api/v1/customers") {
        // First page fine, second page rate limited.
        if (url.searchParams.get("startingAfter") === null) {
          send(200, { data: [{ id: "cus_1" }, { id: "cus_2" }], hasMore: true });
        } else {
          send(429, errorBody("RATE_LIMITED", "Muitas requisições.", url.pathname));
        }
        return;
      }
      send(404, errorBody("NOT_FOUND", "Não encontrado.", url.pathname));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await once(server, "close");
  });

  function client(apiKey = API_KEY): PixClient {
    return createPixClient({ apiKey, baseUrl, retryBackoff: { initialDelayMs: 1, maxDelayMs: 1 } });
  }

  it("yields every item once, in order, across 3 pages", async () => {
    seen.length = 0;
    const items: Transaction[] = [];
    for await (const txn of paginate(client(), "/api/v1/transactions", { query: { status: "PAID" } })) {
      items.push(txn);
    }
    expect(items.map((t) => t.id)).toEqual(transactions.map((t) => t.id));
    expect(new Set(items.map((t) => t.id)).size).toBe(transactions.length);

    expect(seen).toHaveLength(3);
    expect(seen.map((r) => r.method)).toEqual(["GET", "GET", "GET"]);
    expect(seen.map((r) => r.path)).toEqual(Array(3).fill("/api/v1/transactions"));
    // startingAfter = the id of the last item of the page before; absent on the first page.
    expect(seen.map((r) => r.query.get("startingAfter"))).toEqual([null, "txn_0005", "txn_0002"]);
    // The filter is kept on every page.
    expect(seen.map((r) => r.query.get("status"))).toEqual(["PAID", "PAID", "PAID"]);
    // The API key goes as x-api-key on every page.
    for (const request of seen) expect(request.headers["x-api-key"]).toBe(API_KEY);
  });

  it("starts after a given cursor and passes limit through", async () => {
    seen.length = 0;
    const ids: string[] = [];
    for await (const txn of paginate(client(), "/api/v1/transactions", {
      query: { startingAfter: "txn_0006", limit: 3 },
    })) {
      ids.push(txn.id);
    }
    expect(ids).toEqual(transactions.slice(2).map((t) => t.id));
    expect(seen.map((r) => r.query.get("startingAfter"))).toEqual(["txn_0006", "txn_0003"]);
    expect(seen.map((r) => r.query.get("limit"))).toEqual(["3", "3"]);
  });

  it("fetches lazily: breaking out stops asking for pages", async () => {
    seen.length = 0;
    for await (const txn of paginate(client(), "/api/v1/transactions")) {
      if (txn.id === "txn_0006") break;
    }
    expect(seen).toHaveLength(1);
  });

  it("throws a PixApiError with the status, code and body of a failed page, after the client's retries", async () => {
    seen.length = 0;
    const ids: string[] = [];
    const failure = await (async () => {
      try {
        for await (const customer of paginate(client(), "/api/v1/customers")) ids.push(customer.id);
      } catch (error) {
        return error;
      }
      throw new Error("paginate did not throw");
    })();
    expect(ids).toEqual(["cus_1", "cus_2"]);
    expect(failure).toBeInstanceOf(PixApiError);
    const apiError = failure as PixApiError;
    expect(apiError.status).toBe(429);
    expect(apiError.code).toBe("RATE_LIMITED");
    expect(apiError.body?.message).toBe("Muitas requisições.");
    expect(apiError.requestId).toBe("req_test_1");
    expect(apiError.message).toContain("RATE_LIMITED");
    // The first page, then the second page 3 times: the 429 is retried twice (maxRetries' default).
    expect(seen.map((r) => r.query.get("startingAfter"))).toEqual([null, "cus_2", "cus_2", "cus_2"]);
  });

  it("throws UNAUTHORIZED on the first page with a wrong key", async () => {
    await expect(async () => {
      for await (const _ of paginate(client("svc_test_wrong"), "/api/v1/transactions")) {
        // never reached
      }
    }).rejects.toMatchObject({ name: "PixApiError", status: 401, code: "UNAUTHORIZED" });
  });
});

describe("createPixClient", () => {
  it("sends x-api-key through a custom fetch and returns typed data", async () => {
    const requests: Request[] = [];
    const client = createPixClient({
      apiKey: API_KEY,
      baseUrl: "https://pix.example.test/",
      fetch: async (request) => {
        requests.push(request);
        return Response.json({
          availableCents: 1,
          pendingCents: 2,
          blockedCents: 0,
          withdrawableNowCents: 0,
          withdrawFeeCents: 80,
          livemode: false,
        });
      },
    });
    const { data, error } = await client.GET("/api/v1/balance");
    expect(error).toBeUndefined();
    expect(data?.availableCents).toBe(1);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe("https://pix.example.test/api/v1/balance");
    expect(requests[0]?.headers.get("x-api-key")).toBe(API_KEY);
  });

  it("refuses an empty apiKey or baseUrl", () => {
    expect(() => createPixClient({ apiKey: "", baseUrl: "http://x" })).toThrow(TypeError);
    expect(() => createPixClient({ apiKey: API_KEY, baseUrl: "" })).toThrow(TypeError);
  });
});
