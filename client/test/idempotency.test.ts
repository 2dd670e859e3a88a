import { describe, expect, it } from "vitest";
import { newIdempotencyKey } from "../src/index.js";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

describe("newIdempotencyKey", () => {
  it("returns a random UUID v4", () => {
    const key = newIdempotencyKey();
    expect(key).toMatch(new RegExp(`^${UUID}$`));
    expect(newIdempotencyKey()).not.toBe(key);
  });

  it("puts a prefix before the UUID", () => {
    expect(newIdempotencyKey("order-42")).toMatch(new RegExp(`^order-42_${UUID}$`));
  });

  it("is URL-safe and within the header's 255 characters", () => {
    const key = newIdempotencyKey("a".repeat(200));
    expect(encodeURIComponent(key)).toBe(key);
    expect(key.length).toBeLessThanOrEqual(255);
  });

  it("refuses a prefix that is not URL-safe or too long", () => {
    expect(() => newIdempotencyKey("pedido #1")).toThrow(TypeError);
    expect(() => newIdempotencyKey("a/b")).toThrow(TypeError);
    expect(() => newIdempotencyKey("a".repeat(201))).toThrow(TypeError);
  });
});
