import { describe, expect, test } from "vitest";
import { defaultDomainConfig } from "../../src/domain/deps.js";
import { hashPassword, passwordMatches } from "../../src/domain/identity/index.js";

// The tests' servers hash at `minimal` cost (harness.ts); these hold the parameters production uses.

describe("password hashes", () => {
  test("when no cost is named, or the domain's default is, then a hash is argon2id at OWASP's parameters and verifies", async () => {
    expect(defaultDomainConfig.passwordHashCost).toBe("owasp");
    for (const made of [
      await hashPassword("frase longa de teste"),
      await hashPassword("frase longa de teste", "owasp"),
    ]) {
      expect(made).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await passwordMatches(made, "frase longa de teste")).toBe(true);
      expect(await passwordMatches(made, "outra frase longa")).toBe(false);
    }
  });

  test("when the cost is minimal, then a hash is argon2id at its smallest parameters and verifies alike", async () => {
    const made = await hashPassword("frase longa de teste", "minimal");
    expect(made).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
    expect(await passwordMatches(made, "frase longa de teste", "minimal")).toBe(true);
    expect(await passwordMatches(made, "outra frase longa", "minimal")).toBe(false);
    expect(await passwordMatches(null, "frase longa de teste", "minimal")).toBe(false);
  });
});
