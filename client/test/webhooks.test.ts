import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_TOLERANCE_SECONDS, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const SECRET = `whsec_${Buffer.from("a test secret of 32 bytes, fixed").toString("base64")}`;
const OTHER_SECRET = `whsec_${Buffer.from("another secret, not the endpoint").toString("base64")}`;

const event = {
  id: "evt_7Gh9Jk1Lm3Np5Qr7St9V",
  type: "transaction.paid",
  createdAt: "2026-10-04T15:32:11.000Z",
  livemode: false,
  apiVersion: "1.0.0",
  data: {
    object: {
      id: "txn_4Fq9ZtR2mXwP8LkA3cD7",
      status: "PAID",
      amountCents: 8990,
      feeCents: 80,
      netAmountCents: 8910,
      description: "Pedido #1234 - Camiseta azul",
      metadata: { orderId: "1234" },
      livemode: false,
    },
  },
};
const body = JSON.stringify(event);

/** Signs `payload` as the service does and returns the three Standard Webhooks headers. */
function sign(payload: string, at: Date, secret = SECRET, msgId = event.id): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(msgId, at, payload),
  };
}

function minutesAgo(minutes: number): Date {
  return new Date(Date.now() - minutes * 60_000);
}

describe("verifyWebhook", () => {
  it("accepts a body signed with Webhook.sign and returns the typed event", () => {
    const verified = verifyWebhook(body, sign(body, new Date()), SECRET);
    expect(verified).toEqual(event);
    expect(verified.type).toBe("transaction.paid");
    if (verified.type === "transaction.paid") expect(verified.data.object.amountCents).toBe(8990);
  });

  it("accepts a Buffer body, a Headers object and array / mixed-case header values", () => {
    const headers = sign(body, new Date());
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), SECRET).id).toBe(event.id);
    const nodeStyle: Record<string, string | string[] | undefined> = {
      "Webhook-Id": headers["webhook-id"],
      "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"],
      "webhook-signature": ["v1,bm90IHRoZSBzaWduYXR1cmU=", headers["webhook-signature"] ?? ""],
      "content-type": "application/json",
    };
    expect(verifyWebhook(body, nodeStyle, SECRET).id).toBe(event.id);
  });

  it("accepts one matching signature among several (secret rotation)", () => {
    const headers = sign(body, new Date());
    const rotated = sign(body, new Date(), OTHER_SECRET)["webhook-signature"];
    headers["webhook-signature"] = `${rotated} ${headers["webhook-signature"]}`;
    expect(verifyWebhook(body, headers, SECRET).id).toBe(event.id);
  });

  it("rejects a tampered body", () => {
    const headers = sign(body, new Date());
    const tampered = body.replace("8990", "1");
    expect(() => verifyWebhook(tampered, headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(tampered, headers, SECRET)).toThrow(/signature/i);
  });

  it("rejects a body signed with another secret", () => {
    const headers = sign(body, new Date(), OTHER_SECRET);
    expect(() => verifyWebhook(body, headers, SECRET)).toThrow(WebhookVerificationError);
  });

  it("rejects a changed webhook-id (it is part of the signed content)", () => {
    const headers = { ...sign(body, new Date()), "webhook-id": "evt_other" };
    expect(() => verifyWebhook(body, headers, SECRET)).toThrow(WebhookVerificationError);
  });

  it("rejects a timestamp 6 minutes old and accepts one 4 minutes old", () => {
    expect(DEFAULT_WEBHOOK_TOLERANCE_SECONDS).toBe(300);
    expect(() => verifyWebhook(body, sign(body, minutesAgo(6)), SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, sign(body, minutesAgo(6)), SECRET)).toThrow(/too old/);
    expect(verifyWebhook(body, sign(body, minutesAgo(4)), SECRET).id).toBe(event.id);
  });

  it("rejects a timestamp 6 minutes in the future", () => {
    expect(() => verifyWebhook(body, sign(body, minutesAgo(-6)), SECRET)).toThrow(/too new/);
  });

  it("checks the timestamp against an injected now and tolerance", () => {
    const sentAt = new Date("2026-10-04T15:32:11.000Z");
    const headers = sign(body, sentAt);
    const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);
    expect(verifyWebhook(body, headers, SECRET, { now: at(240) }).id).toBe(event.id);
    expect(() => verifyWebhook(body, headers, SECRET, { now: at(360) })).toThrow(/too old/);
    expect(() => verifyWebhook(body, headers, SECRET, { now: at(-360) })).toThrow(/too new/);
    expect(verifyWebhook(body, headers, SECRET, { now: at(360), toleranceSeconds: 600 }).id).toBe(event.id);
    expect(() => verifyWebhook(body, headers, SECRET, { now: at(31), toleranceSeconds: 30 })).toThrow(/too old/);
  });

  it.each(["webhook-id", "webhook-timestamp", "webhook-signature"])("rejects a delivery without %s", (name) => {
    const headers: Record<string, string | undefined> = sign(body, new Date());
    delete headers[name];
    expect(() => verifyWebhook(body, headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, SECRET)).toThrow(/Missing required headers/);
  });

  it("rejects a non-numeric timestamp and a signature of another version", () => {
    const headers = sign(body, new Date());
    expect(() => verifyWebhook(body, { ...headers, "webhook-timestamp": "soon" }, SECRET)).toThrow(
      WebhookVerificationError,
    );
    const v2 = headers["webhook-signature"]?.replace(/^v1,/, "v2,") ?? "";
    expect(() => verifyWebhook(body, { ...headers, "webhook-signature": v2 }, SECRET)).toThrow(
      WebhookVerificationError,
    );
  });

  it("rejects a signed body that is not an event", () => {
    const notJson = "not json";
    expect(() => verifyWebhook(notJson, sign(notJson, new Date()), SECRET)).toThrow(WebhookVerificationError);
    const notEvent = JSON.stringify([1, 2]);
    expect(() => verifyWebhook(notEvent, sign(notEvent, new Date()), SECRET)).toThrow(WebhookVerificationError);
  });

  it("throws a TypeError, not a verification error, for an invalid secret", () => {
    expect(() => verifyWebhook(body, sign(body, new Date()), "whsec_")).toThrow(TypeError);
  });
});
