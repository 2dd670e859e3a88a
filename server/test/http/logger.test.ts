import { Writable } from "node:stream";
import { pino } from "pino";
import { expect, test } from "vitest";
import { loggedError } from "../../src/logger.js";

// What a log line keeps of an error (server/src/logger.ts `loggedError`, the process logger's `err`
// serialiser): never the values of the row a database error quotes.

/** An error as node-postgres makes one for a NOT NULL violation on a row holding secrets. */
function databaseError(): Error {
  return Object.assign(
    new Error('null value in column "url" of relation "webhook_endpoints" violates not-null constraint'),
    {
      code: "23502",
      table: "webhook_endpoints",
      column: "url",
      detail: "Failing row contains (we_1, acc_1, f, null, whsec_c2VncmVkbw==, $argon2id$v=19$m=19456).",
      where: "SQL statement \"INSERT INTO webhook_endpoints VALUES ('whsec_c2VncmVkbw==')\"",
    },
  );
}

test("when a database error is logged, then its code, table and message stay and the row's values do not", () => {
  const lines: string[] = [];
  const logger = pino(
    { serializers: { err: loggedError } },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );

  logger.error({ err: databaseError() }, "request failed");

  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
  expect(line.err).toMatchObject({ type: "Error", code: "23502", table: "webhook_endpoints", column: "url" });
  expect(line.err.message).toContain("violates not-null constraint");
  expect(lines[0]).not.toContain("whsec_");
  expect(lines[0]).not.toContain("argon2id");
  expect(line.err).not.toHaveProperty("detail");
  expect(line.err).not.toHaveProperty("where");
});

test("when something that is not an error is logged as one, then it is kept as pino keeps it", () => {
  expect(loggedError("texto")).toBe("texto");
  expect(loggedError(undefined)).toBeUndefined();
});
