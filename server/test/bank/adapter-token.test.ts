import { describe, expect, test } from "vitest";
import { TokenCache, type IssuedToken } from "../../src/bank/token.js";

/** A token endpoint the test answers by hand: each ask waits until the test resolves it. */
function tokenEndpoint() {
  const asks: { resolve: (t: IssuedToken) => void; reject: (e: Error) => void }[] = [];
  let issued = 0;
  return {
    asks,
    issue: () =>
      new Promise<IssuedToken>((resolve, reject) => {
        asks.push({ resolve, reject });
      }),
    answer(expiresInSeconds = 3600) {
      issued += 1;
      asks.shift()?.resolve({ accessToken: `token-${issued}`, expiresInSeconds });
    },
  };
}

describe("the access token cache", () => {
  test("when 20 callers ask at once, then one token is asked for and all get it", async () => {
    const endpoint = tokenEndpoint();
    const cache = new TokenCache({ issue: endpoint.issue });
    const all = Promise.all(Array.from({ length: 20 }, () => cache.get()));
    await Promise.resolve();
    expect(endpoint.asks).toHaveLength(1);
    endpoint.answer();
    expect(new Set(await all)).toEqual(new Set(["token-1"]));
    expect(await cache.get()).toBe("token-1");
    expect(endpoint.asks).toHaveLength(0);
  });

  test("when the token nears its expiry, then it is renewed once before it expires", async () => {
    let now = 0;
    const endpoint = tokenEndpoint();
    const cache = new TokenCache({ issue: endpoint.issue, now: () => now, marginMs: 60_000 });
    const first = cache.get();
    endpoint.answer(3600);
    expect(await first).toBe("token-1");
    now = 3_539_000; // 61 s before expiry: still handed out.
    expect(await cache.get()).toBe("token-1");
    expect(endpoint.asks).toHaveLength(0);
    now = 3_541_000; // 59 s before expiry: renewed, once for both callers.
    const renewed = Promise.all([cache.get(), cache.get()]);
    await Promise.resolve();
    expect(endpoint.asks).toHaveLength(1);
    endpoint.answer(3600);
    expect(await renewed).toEqual(["token-2", "token-2"]);
    expect(cache.expiresAt()).toBe(3_541_000 + 3_600_000);
  });

  test("when 20 calls are refused with one stale token, then it is renewed once", async () => {
    const endpoint = tokenEndpoint();
    const cache = new TokenCache({ issue: endpoint.issue });
    const first = cache.get();
    endpoint.answer();
    const stale = await first;
    for (let i = 0; i < 20; i++) cache.invalidate(stale);
    const again = Promise.all(Array.from({ length: 20 }, () => cache.get()));
    await Promise.resolve();
    expect(endpoint.asks).toHaveLength(1);
    endpoint.answer();
    expect(new Set(await again)).toEqual(new Set(["token-2"]));
    // A late refusal of the stale token does not drop its replacement.
    cache.invalidate(stale);
    expect(await cache.get()).toBe("token-2");
    expect(endpoint.asks).toHaveLength(0);
  });

  test("when the token endpoint fails, then every waiting caller gets the failure and the next one asks again", async () => {
    const endpoint = tokenEndpoint();
    const cache = new TokenCache({ issue: endpoint.issue });
    const waiting = Promise.allSettled([cache.get(), cache.get()]);
    await Promise.resolve();
    endpoint.asks.shift()?.reject(new Error("banco fora"));
    expect((await waiting).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    const next = cache.get();
    await Promise.resolve();
    expect(endpoint.asks).toHaveLength(1);
    endpoint.answer();
    expect(await next).toBe("token-1");
  });
});
