import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readOpenApiDocument } from "../../src/http/kit/openapi-document.js";
import { dueDateScopesByOperation, scopesByOperation } from "../../src/bank/client.js";
import { recurrenceScopesByOperation } from "../../src/bank/recurrences.js";

const root = join(import.meta.dirname, "../../..");

describe("the scopes the adapter asks", () => {
  test("when each call's scope is compared with the document's security, then they are the same", () => {
    const doc = readOpenApiDocument(join(root, "generated/bank/pix-api.yaml")) as {
      paths: Record<string, Record<string, { security?: { OAuth2?: string[] }[] }>>;
    };
    // The charges' calls, the due-date charges' and Pix Automático's (server/src/bank/recurrences.ts):
    // the latter two with a token of their own.
    const tables = { ...scopesByOperation, ...dueDateScopesByOperation, ...recurrenceScopesByOperation };
    for (const [operation, scope] of Object.entries(tables)) {
      const [method = "", path = ""] = operation.split(" ");
      const security = doc.paths[path]?.[method.toLowerCase()]?.security;
      expect(security, operation).toEqual([{ OAuth2: [scope] }]);
    }
  });
});
