import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import express from "express";
import { afterAll, describe, expect, test } from "vitest";
import { appServer } from "../../src/http/kit/app-server.js";

// The app's server builds its requests and responses as the app's own
// (docs/decisions/0065-requests-born-with-the-apps-prototypes.md). Whether two objects share a
// hidden class is V8's to tell: `%HaveSameMap`, allowed for this check only.

setFlagsFromString("--allow-natives-syntax");
/**
 * Whether V8 gives `a` and `b` one hidden class, each first brought up to date (`%TryMigrateInstance`):
 * a class V8 retired when one of its fields widened (a number field given an object, in a process
 * whose other tests had used Node's HTTP objects otherwise) stays on an object made before, until
 * the object is next touched by running code, which migrates it. A fresh clone's run met that once.
 */
const haveSameMap = new Function(
  "a",
  "b",
  "%TryMigrateInstance(a); %TryMigrateInstance(b); return %HaveSameMap(a, b)",
) as (a: object, b: object) => boolean;

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Two requests answered by a bare app on `serve`'s server: the objects its handler saw, and the app. */
async function twoRequests(serve: (app: express.Express) => Server) {
  const app = express();
  const seen: { req: IncomingMessage; res: ServerResponse }[] = [];
  app.get("/x", (req, res) => {
    seen.push({ req, res });
    res.json({ path: req.path, query: req.query });
  });
  const server = serve(app).listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answers = [await fetch(`${base}/x?a=1`), await fetch(`${base}/x?a=2`)];
  expect(await Promise.all(answers.map((a) => a.json()))).toEqual([
    { path: "/x", query: { a: "1" } },
    { path: "/x", query: { a: "2" } },
  ]);
  return { app, seen };
}

describe("appServer", () => {
  test("when two requests are answered, then their requests share one hidden class, as do their responses", async () => {
    const { app, seen } = await twoRequests(appServer);
    const [first, second] = seen;
    expect(Object.getPrototypeOf(first!.req)).toBe(app.request);
    expect(Object.getPrototypeOf(first!.res)).toBe(app.response);
    expect(haveSameMap(first!.req, second!.req)).toBe(true);
    expect(haveSameMap(first!.res, second!.res)).toBe(true);
  });

  test("when the same app runs on a plain node:http server, then each request has a class of its own (what appServer avoids)", async () => {
    const { seen } = await twoRequests((app) => createServer(app));
    const [first, second] = seen;
    expect(haveSameMap(first!.req, second!.req)).toBe(false);
    expect(haveSameMap(first!.res, second!.res)).toBe(false);
  });
});
