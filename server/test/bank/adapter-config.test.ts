import { describe, expect, test } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

describe("the bank's configuration", () => {
  test("when nothing is set, then the bounded wait is 5 s and no listener runs", () => {
    const config = loadConfig({});
    expect(config.bankTimeoutMs).toBe(5000);
    expect(config.bankWebhookPort).toBeUndefined();
  });

  test("when the listener's port comes without its certificate, then the configuration is refused naming both files", () => {
    const refused = (() => {
      try {
        loadConfig({ PIX_BANK_WEBHOOK_PORT: "9443", PIX_BANK_WEBHOOK_CERT_FILE: "/tmp/cert.pem" });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems.join("\n")).toMatch(
      /PIX_BANK_WEBHOOK_CERT_FILE e PIX_BANK_WEBHOOK_KEY_FILE/,
    );
  });

  test("when the port and both files are set, then they are taken", () => {
    const config = loadConfig({
      PIX_BANK_WEBHOOK_PORT: "9443",
      PIX_BANK_WEBHOOK_CERT_FILE: "/tmp/cert.pem",
      PIX_BANK_WEBHOOK_KEY_FILE: "/tmp/key.pem",
      PIX_BANK_TIMEOUT_MS: "1500",
    });
    expect(config).toMatchObject({
      bankWebhookPort: 9443,
      bankWebhookCertFile: "/tmp/cert.pem",
      bankWebhookKeyFile: "/tmp/key.pem",
      bankTimeoutMs: 1500,
    });
  });
});
