import { Agent } from "node:https";
import { afterEach, describe, expect, test } from "vitest";
import { createCertificateAuthority, type IssuedCertificate } from "../../../fake-bank/src/certs.js";
import { startWebhookListener, type WebhookListener } from "../../src/bank/listener.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";
import { postToListener } from "../support/listener-post.js";

// The webhook listener keeps a bank's connection for its next callbacks; when the operator connects
// another bank (another CA), a connection admitted for the old one admits nothing more: the idle
// ones are closed, and a callback still arriving on one is answered 421 and handed nowhere.

const bankA = createCertificateAuthority("Listener connections bank A");
const bankB = createCertificateAuthority("Listener connections bank B");
const clientA = bankA.issueClient("bank-a-callbacks");
const clientB = bankB.issueClient("bank-b-callbacks");
const serverCertificate = listenerCertificateAuthority().issueServer(["127.0.0.1"]);
const pixBody = (n: number) => ({
  pix: [
    {
      endToEndId: `E12345678202611301200000000000${String(n).padStart(2, "0")}`,
      txid: "svctxn0123456789abcdefghijkl",
      valor: "10.50",
      horario: "2026-11-30T12:00:00.000Z",
    },
  ],
});

describe("the webhook listener, the bank's kept connections", () => {
  let listener: WebhookListener | undefined;
  const agents: Agent[] = [];
  const handed: string[] = [];

  async function start(): Promise<WebhookListener> {
    listener = await startWebhookListener({
      port: 0,
      host: "127.0.0.1",
      serverCertificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
      bank: { ca: bankA.certPem, dialect: "standard" },
      onReceived: (ids) => void handed.push(...ids),
    });
    return listener;
  }
  function agent(): Agent {
    const made = new Agent({ keepAlive: true });
    agents.push(made);
    return made;
  }
  afterEach(async () => {
    for (const made of agents.splice(0)) made.destroy();
    await listener?.close();
    handed.length = 0;
  });

  /** POSTs a callback to `/pix` with `client`'s certificate on `via` (see `postToListener`). */
  const post = (via: Agent, client: IssuedCertificate, body: unknown, midway?: () => Promise<void>) =>
    postToListener(listener?.port ?? 0, "/pix", JSON.stringify(body), {
      identity: client,
      agent: via,
      ...(midway ? { midway } : {}),
    });

  test("when the bank's callbacks follow one another, then they share one connection", async () => {
    await start();
    const via = agent();
    expect(await post(via, clientA, pixBody(1))).toMatchObject({ status: 200, reused: false });
    expect(await post(via, clientA, pixBody(2))).toMatchObject({ status: 200, reused: true });
    expect(handed).toEqual([pixBody(1).pix[0]?.endToEndId, pixBody(2).pix[0]?.endToEndId]);
  });

  test("when the operator connects another bank, then the old bank's kept connection is closed and its certificate refused, and the new bank's callbacks are heard", async () => {
    const started = await start();
    const viaA = agent();
    expect(await post(viaA, clientA, pixBody(1))).toMatchObject({ status: 200 });
    started.update({ ca: bankB.certPem, dialect: "standard" });
    // The kept connection is gone; a new one is refused in its handshake (bank B's CA only).
    await expect(post(viaA, clientA, pixBody(2))).rejects.toThrow();
    expect(await post(agent(), clientB, pixBody(3))).toMatchObject({ status: 200, reused: false });
    expect(handed).toEqual([pixBody(1).pix[0]?.endToEndId, pixBody(3).pix[0]?.endToEndId]);
  });

  test("when the same bank's connection is updated (its path), then its kept connection still serves", async () => {
    const started = await start();
    const via = agent();
    expect(await post(via, clientA, pixBody(1))).toMatchObject({ status: 200 });
    started.update({ ca: bankA.certPem, dialect: "standard", path: "" });
    expect(await post(via, clientA, pixBody(2))).toMatchObject({ status: 200, reused: true });
  });

  test("when a callback is under way on the old bank's connection as another bank is connected, then it is answered 421, the connection closed, and nothing is handed on", async () => {
    const started = await start();
    const via = agent();
    expect(await post(via, clientA, pixBody(1))).toMatchObject({ status: 200 });
    const answer = await post(via, clientA, pixBody(2), async () => {
      // The headers and half the body are at the listener by now, on the kept connection.
      await new Promise((resolve) => setTimeout(resolve, 100));
      started.update({ ca: bankB.certPem, dialect: "standard" });
    });
    expect(answer).toEqual({ status: 421, text: "conexão de outro banco", connection: "close", reused: true });
    expect(handed).toEqual([pixBody(1).pix[0]?.endToEndId]);
  });
});
