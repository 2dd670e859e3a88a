import { describe, expect, expectTypeOf, test } from "vitest";
import type { Handlers, HandlersOfTag } from "../../generated/dashboard-operations.js";
import { type OpenApiDocument, readOperations, renderOperations } from "./emit-operations.js";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// The dashboard's handler contract proves the session by type
// (docs/decisions/0047-request-state-typed-once-and-the-session-proved-by-type.md): every operation
// with `x-roles` takes the `Session` context, the others the `Open` one, and the operations of a
// tag are one type a handler file takes.

const dashboard = readOperations(readOpenApiDocument<OpenApiDocument>("generated/dashboard-openapi.yaml"), false, true);
const contract = renderOperations(dashboard, "./dashboard-api.js", true);

describe("the generated handler contract", () => {
  test("when an operation declares x-roles, then its handler takes the Session context, and otherwise the Open one", () => {
    const withSession = dashboard.filter((op) => op.roles.length > 0);
    expect(withSession.length).toBeGreaterThan(0);
    expect(withSession.length).toBeLessThan(dashboard.length);
    for (const op of dashboard) {
      const line = contract.split("\n").find((l) => l.trimStart().startsWith(`${op.operationId}(request:`));
      expect(line, op.operationId).toContain(op.roles.length > 0 ? "ctx: Session)" : "ctx: Open)");
    }
  });

  test("when the operations are grouped by tag, then each operation is in its own tag's group, and in no other", () => {
    const groups = new Map<string, string[]>();
    for (const line of contract.slice(contract.indexOf("export interface OperationsByTag")).split("\n").slice(1)) {
      const found = /^ {2}"([^"]+)": (.+);$/.exec(line);
      if (!found) break;
      groups.set(
        found[1] as string,
        [...(found[2] as string).matchAll(/"(\w+)"/g)].map((m) => m[1] as string),
      );
    }
    for (const op of dashboard) {
      const tagsWithIt = [...groups].filter(([, ids]) => ids.includes(op.operationId)).map(([tag]) => tag);
      expect(tagsWithIt, op.operationId).toEqual([op.tag]);
    }
  });

  test("when the contract is written, then it carries no Express path (dispatch does not use Express routes)", () => {
    expect(contract).not.toContain("expressPath");
  });

  test("when a handler of an operation without a session is typed, then it has no actor to read", () => {
    interface Open {
      client: string;
    }
    interface Session extends Open {
      actor: string;
    }
    type Team = HandlersOfTag<"Team", Open, Session>;
    expectTypeOf<Parameters<Team["listMembers"]>[1]>().toEqualTypeOf<Session>();
    expectTypeOf<Parameters<Team["acceptInvitation"]>[1]>().toEqualTypeOf<Open>();
    expectTypeOf<Parameters<Handlers<Open, Session>["logIn"]>[1]>().not.toHaveProperty("actor");
  });
});
