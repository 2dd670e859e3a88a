import { describe, expect, test } from "vitest";
import { modeFromSlug, modePath, safeReturnPath, switchModePath } from "../src/lib/mode";

// The mode lives in the address: /painel/teste/… and /painel/producao/… (issue 26).

describe("the mode in the address", () => {
  test("when a mode's screen is addressed, then its first segment names the mode in Portuguese", () => {
    expect(modePath("test")).toBe("/teste");
    expect(modePath("production", "transacoes")).toBe("/producao/transacoes");
    expect(modePath("test", "/configuracoes/seguranca")).toBe("/teste/configuracoes/seguranca");
    expect(modeFromSlug("teste")).toBe("test");
    expect(modeFromSlug("producao")).toBe("production");
    expect(modeFromSlug("prod")).toBeNull();
  });

  test("when the mode is switched, then the same screen opens in the other, but an object's page goes to its list", () => {
    expect(switchModePath("/teste/transacoes", "production")).toBe("/producao/transacoes");
    expect(switchModePath("/teste/transacoes/txn_123", "production")).toBe("/producao/transacoes");
    expect(switchModePath("/producao/configuracoes/sessoes", "test")).toBe("/teste/configuracoes/sessoes");
    expect(switchModePath("/producao", "test")).toBe("/teste");
    expect(switchModePath("/entrar", "test")).toBe("/teste");
  });

  test("when the log-in returns to where the person was, then only an address of the panel is taken", () => {
    expect(safeReturnPath("/producao/transacoes?status=PAID")).toBe("/producao/transacoes?status=PAID");
    expect(safeReturnPath("//evil.example/x")).toBe("/teste");
    expect(safeReturnPath("/\\evil.example")).toBe("/teste");
    expect(safeReturnPath("https://evil.example")).toBe("/teste");
    expect(safeReturnPath("/entrar")).toBe("/teste");
    expect(safeReturnPath(null)).toBe("/teste");
  });
});
