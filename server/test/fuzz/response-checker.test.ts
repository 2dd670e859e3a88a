import { expect, test } from "vitest";
import { parseBody, responseChecker } from "../../../contract-tests/support/openapi.js";

// The checker the fuzzer and the contract suites judge answers with: by the media types the
// document declares, so a text/csv answer is text, and a body where none is declared is refused.

const dashboard = responseChecker("dashboard");
const headers = (contentType?: string, more: Record<string, string> = {}) =>
  new Headers({ ...(contentType ? { "content-type": contentType } : {}), ...more });
const attachment = { "content-disposition": 'attachment; filename="transacoes.csv"' };

test("when a CSV export answers text/csv, then it is accepted as text; as JSON, it is refused", () => {
  const csv = "\ufeffid;valor\r\ntxn_1;129,90\r\n";

  expect(
    dashboard.check("exportDashboardTransactions", 200, headers("text/csv; charset=utf-8", attachment), csv),
  ).toEqual([]);
  expect(
    dashboard.check(
      "exportDashboardTransactions",
      200,
      headers("application/json", attachment),
      parseBody(headers(), "[]"),
    ),
  ).toEqual(["content-type application/json is not declared (declared: text/csv)"]);
});

test("when an error answers, then its JSON body is checked against the error schema", () => {
  const body = parseBody(headers("application/json"), '{"ok":false,"code":"NAO_EXISTE"}');

  const problems = dashboard.check("exportDashboardTransactions", 400, headers("application/json"), body);

  expect(problems.length).toBeGreaterThan(0);
});

test("when a 204 carries a body, or an answer has no content type, then it is refused", () => {
  expect(dashboard.check("endSession", 204, headers("text/plain"), "ok")).toEqual([
    "a body where status 204 declares none",
  ]);
  expect(dashboard.check("getSession", 401, headers(), "Unauthorized")).toEqual([
    "content-type (none) is not declared (declared: application/json)",
  ]);
});
