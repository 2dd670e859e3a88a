import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createPool } from "../../src/store/postgres/index.js";
import { isoTimestamp, query } from "../../src/store/postgres/sql.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";

// Timestamps leave PostgreSQL as text; the store hands them out as `Date#toISOString` writes them.
// In a UTC session (the pool's) the text is rearranged without a Date; any other is parsed.

/** What PostgreSQL writes for a timestamptz(3) in a UTC session with the ISO date style. */
function postgresUtcText(at: Date): string {
  const iso = at.toISOString(); // 2026-11-23T16:38:33.339Z
  const fraction = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ""}+00`;
}

const instants = fc.date({
  min: new Date("0001-01-01T00:00:00.000Z"),
  max: new Date("9999-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});

describe("isoTimestamp", () => {
  test("when PostgreSQL's UTC text of any instant from year 1 to 9999 is read, then it is the instant's ISO form", () => {
    fc.assert(
      fc.property(instants, (at) => {
        expect(isoTimestamp(postgresUtcText(at))).toBe(at.toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    { text: "2026-11-23 16:38:33+00", iso: "2026-11-23T16:38:33.000Z" },
    { text: "2026-11-23 16:38:33.3+00", iso: "2026-11-23T16:38:33.300Z" },
    { text: "2026-11-23 16:38:33.34+00", iso: "2026-11-23T16:38:33.340Z" },
    { text: "2026-11-23 13:38:33.339-03", iso: "2026-11-23T16:38:33.339Z" },
    { text: "2026-11-23 19:08:33.339+02:30", iso: "2026-11-23T16:38:33.339Z" },
  ])("when the text is $text, then it reads $iso", ({ text, iso }) => {
    expect(isoTimestamp(text)).toBe(iso);
  });
});

describePg("timestamps read from PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("timestamps", { migrate: false });
  });
  afterAll(() => database?.drop());

  const values = [
    "2026-11-23T16:38:33.339Z",
    "2026-11-23T16:38:33.300Z",
    "2026-11-23T16:38:33.000Z",
    "2026-02-28T23:59:59.999Z",
    "1970-01-01T00:00:00.001Z",
  ];

  test("when the store's pool reads timestamps, then the session is UTC and each comes back as written", async () => {
    const pool = createPool(database.url);
    try {
      const zone = await query<{ TimeZone: string }>(pool, "SHOW TimeZone");
      const rows = await query<{ at: string }>(pool, "SELECT unnest($1::timestamptz(3)[]) AS at", [values]);

      expect(zone[0]?.TimeZone).toBe("UTC");
      expect(rows.map((r) => r.at)).toEqual(values);
    } finally {
      await pool.end();
    }
  });

  test("when a session in another time zone reads them, then each still comes back as written", async () => {
    const pool = new pg.Pool({ connectionString: database.url, options: "-c TimeZone=America/Sao_Paulo", max: 1 });
    try {
      const rows = await query<{ at: string; text: string }>(
        pool,
        "SELECT unnest($1::timestamptz(3)[]) AS at, unnest($1::timestamptz(3)[])::text AS text",
        [values],
      );

      expect(rows.map((r) => r.text).every((t) => t.endsWith("-03"))).toBe(true);
      expect(rows.map((r) => r.at)).toEqual(values);
    } finally {
      await pool.end();
    }
  });
});
