import { describe, expect, test } from "vitest";
import { Table } from "../../src/store/memory/table.js";

// A memory table keeps its own deep copy of each row, deep-frozen (table.ts `frozenCopy`): no
// caller holds a reference into the store, and a write in place throws.

type Row = { id: string; [key: string]: unknown };

describe("memory table rows", () => {
  test("when a row with nested objects, arrays, a Date and a client's __proto__ key is stored, then the table keeps an equal deep-frozen copy that the caller's changes do not reach", () => {
    const table = new Table<Row>(() => null);
    const fromClient = JSON.parse('{"__proto__": {"admin": true}, "note": "x"}') as Record<string, unknown>;
    const row: Row = {
      id: "r1",
      nested: { list: [1, { deep: "a" }], empty: null, missing: undefined },
      at: new Date("2026-11-28T12:00:00.000Z"),
      metadata: fromClient,
    };
    table.insert(row);
    const stored = table.get("r1") as Row & {
      nested: { list: [number, { deep: string }]; empty: null; missing: undefined };
      at: Date;
      metadata: Record<string, unknown>;
    };

    expect(stored).not.toBe(row);
    expect(stored).toEqual(row);
    expect("missing" in stored.nested).toBe(true);
    for (const part of [stored, stored.nested, stored.nested.list, stored.nested.list[1], stored.metadata]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (stored.nested.list[1] as { deep: string }).deep = "b";
    }).toThrow(TypeError);
    // Not plain: copied by structuredClone, still a Date, frozen.
    expect(stored.at).toBeInstanceOf(Date);
    expect(stored.at).not.toBe(row.at);
    expect(Object.isFrozen(stored.at)).toBe(true);
    // The client's __proto__ stays an own key: the copy's prototype is Object's, with no `admin`.
    expect(Object.keys(stored.metadata)).toEqual(["__proto__", "note"]);
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    expect((stored.metadata as { admin?: unknown }).admin).toBeUndefined();

    (row.nested as { list: unknown[] }).list.push(2);
    expect(stored.nested.list).toHaveLength(2);
    table.update({ ...stored, nested: { list: [] } });
    expect(table.get("r1")?.nested).toEqual({ list: [] });
  });
});
