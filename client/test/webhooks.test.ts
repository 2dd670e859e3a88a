import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  signWebhookForTest,
  verifyWebhook,
  WebhookVerificationError,
} from "../src/index.js";

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

describe("signWebhookForTest", () => {
  it("when given the Standard Webhooks example, then it signs it as the specification does", () => {
    // The example message of the Standard Webhooks specification and its published signature.
    const signed = signWebhookForTest({
      payload: '{"test": 2432232314}',
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
    });

    expect(signed).toEqual({
      body: '{"test": 2432232314}',
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      },
    });
  });

  it("when an event is signed, then verifyWebhook and the standardwebhooks library accept it", () => {
    const { body: signedBody, headers } = signWebhookForTest({ payload: event, secret: SECRET });

    expect(signedBody).toBe(body);
    expect(headers["webhook-id"]).toBe(event.id);
    expect(verifyWebhook(signedBody, headers, SECRET)).toEqual(event);
    expect(new Webhook(SECRET).verify(signedBody, headers)).toEqual(event);
  });

  it("when the signed body is tampered with, then verifyWebhook rejects it", () => {
    const { body: signedBody, headers } = signWebhookForTest({ payload: event, secret: SECRET });

    const tampered = signedBody.replace("8990", "1");

    expect(() => verifyWebhook(tampered, headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(signedBody, headers, OTHER_SECRET)).toThrow(WebhookVerificationError);
  });

  it("when id and timestamp are given, then the headers carry them and the signature covers them", () => {
    const sentAt = new Date("2026-10-04T15:32:11.000Z");

    const fromDate = signWebhookForTest({ payload: event, secret: SECRET, id: "msg_1", timestamp: sentAt });
    const fromSeconds = signWebhookForTest({ payload: event, secret: SECRET, id: "msg_1", timestamp: 1791127931 });

    expect(fromDate.headers["webhook-id"]).toBe("msg_1");
    expect(fromDate.headers["webhook-timestamp"]).toBe("1791127931");
    expect(fromSeconds).toEqual(fromDate);
    expect(verifyWebhook(fromDate.body, fromDate.headers, SECRET, { now: sentAt }).id).toBe(event.id);
    expect(() => verifyWebhook(fromDate.body, fromDate.headers, SECRET)).toThrow(/too old/);
  });

  it("when the payload has no id, then a new msg_ id is used", () => {
    const first = signWebhookForTest({ payload: { type: "withdrawal.paid" }, secret: SECRET });
    const second = signWebhookForTest({ payload: "{}", secret: SECRET });

    expect(first.headers["webhook-id"]).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(second.headers["webhook-id"]).toMatch(/^msg_/);
    expect(second.headers["webhook-id"]).not.toBe(first.headers["webhook-id"]);
  });

  it.each([
    { name: "no whsec_ prefix", secret: Buffer.from("secret").toString("base64") },
    { name: "nothing after whsec_", secret: "whsec_" },
    { name: "not base64", secret: "whsec_not base64!" },
  ])("when the secret has $name, then it throws a TypeError", ({ secret }) => {
    expect(() => signWebhookForTest({ payload: event, secret })).toThrow(TypeError);
  });

  it("when the timestamp is not whole seconds, then it throws a TypeError", () => {
    expect(() => signWebhookForTest({ payload: event, secret: SECRET, timestamp: 1.5 })).toThrow(TypeError);
    expect(() => signWebhookForTest({ payload: event, secret: SECRET, timestamp: new Date("nope") })).toThrow(
      TypeError,
    );
  });
});
