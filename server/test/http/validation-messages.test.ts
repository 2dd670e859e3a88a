import { expect, test } from "vitest";
import { validationMessage } from "../../src/http/kit/validation-messages.js";
import { startTestServer } from "../harness.js";
import { signedUp } from "../support/dashboard.js";

// A field error's message is at most 1000 characters (`maxMessageLength`): an enum's values are
// listed while they fit. The dashboard fuzzer found GET /dashboard/v1/audit-log?action=abc
// answering a 400 whose message listed every audit action, past the bound its own schema sets.

test("when an enum's values do not fit in a message, then as many as fit are listed, and where the rest are", () => {
  const values = Array.from({ length: 80 }, (_, i) => `acao.numero_${i}`);
  const enumError = (allowedValues: string[]) => ({
    keyword: "enum",
    instancePath: "/query/action",
    schemaPath: "",
    params: { allowedValues },
  });

  const message = validationMessage(enumError(values));

  expect(message.length).toBeLessThanOrEqual(1000);
  expect(message).toMatch(
    /^deve ser um dos valores: acao\.numero_0, acao\.numero_1, .*acao\.numero_\d+, … \(a lista completa está na documentação\)$/,
  );
  expect(validationMessage(enumError(["test", "production"]))).toBe("deve ser um dos valores: test, production");
});

test("when the audit log is filtered by an action that does not exist, then 400 names the field in a message within its bound", async () => {
  const server = await startTestServer();
  try {
    const { browser } = await signedUp(server);

    const answer = (await browser.api.GET("/dashboard/v1/audit-log", {
      params: { query: { action: "abc" as never } },
    })) as { status: number; body: { errors: { path: string; message: string }[] } };

    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]?.path).toBe("action");
    expect(answer.body.errors[0]?.message.length).toBeLessThanOrEqual(1000);
  } finally {
    await server.close();
  }
});
