import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requestLog } from "../../src/http/request-log.js";

// One line per request, at a level that says what happened: an outage's 503s are expected answers
// (warn), a 500 is a defect (error).

const lines: { level: number; msg: string }[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});
const logger = pino({ level: "info" }, sink);
/** The requests told to the request logs' capture, with their status (answers sent whole only). */
const answered: number[] = [];
let server: import("node:http").Server;
let baseUrl: string;

beforeAll(async () => {
  const app = express();
  app.use(requestLog(logger, (_req, res) => void answered.push(res.statusCode)));
  app.get("/status/:code", (req, res) => {
    res.status(Number(req.params.code)).json({ ok: false });
  });
  // Answers only after its client went away.
  app.get("/slow", (req, res) => {
    req.socket.once("close", () => setTimeout(() => res.status(200).json({ late: true }), 10));
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("request log levels", () => {
  test.each([
    { status: 200, level: 30 },
    { status: 404, level: 30 },
    { status: 503, level: 40 },
    { status: 500, level: 50 },
    { status: 502, level: 50 },
  ])("when a request is answered $status, then its line is logged at level $level", async ({ status, level }) => {
    const res = await fetch(`${baseUrl}/status/${status}`);
    await res.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = lines.find((l) => l.msg === `GET /status/${status} ${status}`);
    expect(line?.level).toBe(level);
  });
});

describe("a client that goes away", () => {
  test("when the client closes the connection before the answer, then the line is an error 'aborted' and the request logs are not told", async () => {
    const before = answered.length;
    await new Promise<void>((resolve) => {
      const req = request(`${baseUrl}/slow`);
      req.on("error", () => resolve());
      req.end(() => setTimeout(() => req.destroy(), 20));
    });
    await expect.poll(() => lines.find((l) => l.msg === "GET /slow aborted")?.level).toBe(50);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered.length).toBe(before);
  });

  test("when an answer is sent whole, then the request logs are told once, with its status", async () => {
    const before = answered.length;
    await (await fetch(`${baseUrl}/status/201`)).text();
    await expect.poll(() => answered.length).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered.slice(before)).toEqual([201]);
  });
});
