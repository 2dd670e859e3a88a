import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type Request } from "express";
import { afterAll, describe, expect, test } from "vitest";
import {
  perMinuteLimiter,
  type PerMinuteLimit,
  processCounters,
  type RateLimitCount,
  type RateLimitStore,
} from "../../src/http/kit/rate-limit.js";

// `perMinuteLimiter` on a bare Express app behind one trusted proxy hop, so each request names its
// client in `X-Forwarded-For`: the answer express-rate-limit gave before the middleware became ours
// (docs/decisions/0063-rate-limits-counted-by-our-own-middleware.md).

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function limited(options: Partial<PerMinuteLimit> & { limit: number }): Promise<string> {
  const app = express();
  app.set("trust proxy", 1);
  app.use(
    perMinuteLimiter({
      name: "test",
      applies: (req: Request) => req.path !== "/free",
      tooMany: (_req, res, seconds) => void res.json({ code: "RATE_LIMITED", seconds }),
      ...options,
    }),
  );
  app.get(/.*/, (req, res) => void res.status(req.query.fail ? 401 : 200).json({ ok: true }));
  app.use(((error, _req, res, _next) => void res.status(503).json({ error: String(error) })) as ErrorRequestHandler);
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const from = (base: string, client: string, path = "/x") =>
  fetch(base + path, { headers: { "x-forwarded-for": client } });

describe("perMinuteLimiter", () => {
  test("when a client calls, then each answer carries the draft-7 headers and the budget's 429 has Retry-After", async () => {
    const base = await limited({ limit: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await from(base, "198.51.100.1"));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers.map((a) => a.headers.get("ratelimit-policy"))).toEqual(["2;w=60", "2;w=60", "2;w=60"]);
    expect(answers.map((a) => a.headers.get("ratelimit"))).toEqual([
      expect.stringMatching(/^limit=2, remaining=1, reset=(59|60)$/),
      expect.stringMatching(/^limit=2, remaining=0, reset=(59|60)$/),
      expect.stringMatching(/^limit=2, remaining=0, reset=(59|60)$/),
    ]);
    const retryAfter = Number(answers[2]?.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await answers[2]?.json()).toEqual({ code: "RATE_LIMITED", seconds: retryAfter });
    // Another client, and a path the budget does not apply to, are not refused.
    expect((await from(base, "198.51.100.2")).status).toBe(200);
    const free = await from(base, "198.51.100.1", "/free");
    expect(free.status).toBe(200);
    expect(free.headers.get("ratelimit")).toBeNull();
  });

  test("when IPv6 clients call, then addresses of one /56 share a budget and another /56 has its own", async () => {
    const base = await limited({ limit: 1 });
    expect((await from(base, "2001:db8:0:100::1")).status).toBe(200);
    // The same /56 (2001:db8:0:100::/56), another address.
    expect((await from(base, "2001:db8:0:1ff::abcd")).status).toBe(429);
    // The next /56.
    expect((await from(base, "2001:db8:0:200::1")).status).toBe(200);
  });

  test("when a budget keeps failures only, then answers it does not keep are taken back", async () => {
    const base = await limited({ limit: 2, keepsCount: (_req, res) => res.statusCode === 401 });
    for (let i = 0; i < 5; i++) expect((await from(base, "198.51.100.3")).status).toBe(200);
    expect((await from(base, "198.51.100.3", "/x?fail=1")).status).toBe(401);
    expect((await from(base, "198.51.100.3", "/x?fail=1")).status).toBe(401);
    const refused = await from(base, "198.51.100.3");
    expect(refused.status).toBe(429);
  });

  test("when the store answers by a promise, then the request waits for it; when it fails, then the error handler answers", async () => {
    const counts = processCounters();
    let failing = false;
    const promised: RateLimitStore = {
      init: (options) => counts.init?.(options),
      increment: (key) =>
        failing
          ? Promise.reject(new Error("counters away"))
          : new Promise<RateLimitCount>((resolve) => setTimeout(() => resolve(counts.increment(key)), 5)),
      decrement: (key) => counts.decrement(key),
      shutdown: () => counts.shutdown?.(),
    };
    const base = await limited({ limit: 1, makeStore: () => promised });

    expect((await from(base, "198.51.100.4")).status).toBe(200);
    expect((await from(base, "198.51.100.4")).status).toBe(429);
    failing = true;
    const away = await from(base, "198.51.100.5");
    expect(away.status).toBe(503);
    expect(await away.json()).toEqual({ error: "Error: counters away" });
    promised.shutdown?.();
  });

  test("when a store throws while counting, then the error handler answers and nothing is counted", async () => {
    const base = await limited({
      limit: 1,
      makeStore: () => ({
        increment: () => {
          throw new Error("broken");
        },
        decrement: () => undefined,
      }),
    });
    const answer = await from(base, "198.51.100.6");
    expect(answer.status).toBe(503);
    expect(answer.headers.get("ratelimit")).toBeNull();
  });
});
