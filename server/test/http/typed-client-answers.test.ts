import { AssertionError } from "node:assert";
import { expect, test } from "vitest";
import { checkAnswer } from "../support/client.js";

// The typed test clients check every answer against its document (support/client.ts): what the
// server's response validation did before it left the server. Shown here to fail.

const json = (status: number) => ({ status, headers: new Headers({ "content-type": "application/json" }) });

test("when an answer keeps the document, then the check passes", () => {
  expect(() => checkAnswer("public", "get", "/api/v1/balance", json(401), JSON.stringify(unauthorized))).not.toThrow();
});

test("when an answer's status is not declared, then the check fails and names it", () => {
  expect(() => checkAnswer("public", "get", "/api/v1/balance", json(418), "{}")).toThrow(/status 418 is not declared/);
});

test("when an answer's body breaks its schema, then the check fails", () => {
  expect(() =>
    checkAnswer("public", "get", "/api/v1/balance", json(401), JSON.stringify({ ...unauthorized, ok: "no" })),
  ).toThrow(AssertionError);
});

test("when a path is no operation of the document, then the check fails", () => {
  expect(() => checkAnswer("dashboard", "get", "/api/v1/balance", json(200), "{}")).toThrow(/no operation/);
});

const unauthorized = {
  ok: false,
  code: "UNAUTHORIZED",
  message: "Chave de API ausente ou inválida.",
  path: "/api/v1/balance",
  timestamp: "2026-10-04T15:30:00.000Z",
};
