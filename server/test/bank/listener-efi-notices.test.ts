import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createCertificateAuthority, type IssuedCertificate } from "../../../fake-bank/src/certs.js";
import { startWebhookListener, type WebhookListener } from "../../src/bank/listener.js";
import { listenerCertificateAuthority } from "../support/listener-ca.js";
import { postToListener } from "../support/listener-post.js";

// The webhook listener's reading of Efí's `/pix` callbacks (issue 36 §1): one body may carry Pix
// received (the standard's shape, to `onReceived`) and notices of Pix we sent (an entry with
// `gnExtras.idEnvio`, checked against our document of Efí's payouts, to `onPayoutsSettled`). A
// malformed entry of either kind refuses the whole body (400) and hands nothing on.

const at = "2026-11-30T12:00:00.000Z";
const received = {
  endToEndId: "E1234567820261130120000000000001",
  txid: "svctxn0123456789abcdefghijkl",
  valor: "10.50",
  horario: at,
};
const sent = {
  endToEndId: "E090893562021030PIf25a7868",
  chave: "pagadora@loja.example",
  tipo: "SOLICITACAO",
  status: "REALIZADO",
  valor: "99.20",
  horario: at,
  gnExtras: { idEnvio: "trf0123456789abcdefghijK" },
};
const rejected = {
  ...sent,
  endToEndId: "E090893562021030PIf25a7869",
  status: "NAO_REALIZADO",
  horario: null,
  gnExtras: { idEnvio: "trf0123456789abcdefghijL", erro: { codigo: "AC03", motivo: "Conta inexistente" } },
};

describe("the webhook listener, Efí's notices of sent Pix", () => {
  let listener: WebhookListener;
  let bankClient: IssuedCertificate;
  const handed: { received: string[][]; settled: string[][] } = { received: [], settled: [] };

  beforeAll(async () => {
    const bankCa = createCertificateAuthority("Efí test bank CA");
    bankClient = bankCa.issueClient("efi-callbacks");
    const serverCertificate = listenerCertificateAuthority().issueServer(["127.0.0.1"]);
    listener = await startWebhookListener({
      port: 0,
      host: "127.0.0.1",
      serverCertificate: { cert: serverCertificate.certPem, key: serverCertificate.keyPem },
      bank: { ca: bankCa.certPem, dialect: "efi" },
      onReceived: (ids) => void handed.received.push(ids),
      onPayoutsSettled: (ids) => void handed.settled.push(ids),
    });
  });
  afterAll(() => listener.close());

  /** POSTs `body` to `/pix` with the bank's client certificate: the status and the answer's text. */
  const post = (body: unknown) => postToListener(listener.port, "/pix", JSON.stringify(body), { identity: bankClient });
  const handedOff = async () => {
    // The hand-off follows the 200 in the same tick of the listener's event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const out = { received: [...handed.received], settled: [...handed.settled] };
    handed.received.length = 0;
    handed.settled.length = 0;
    return out;
  };

  test("when one body carries a Pix received and notices of a sent Pix and a rejected one, then each id goes to its own hand-off", async () => {
    expect((await post({ pix: [received, sent, rejected, sent] })).status).toBe(200);
    expect(await handedOff()).toEqual({
      received: [[received.endToEndId]],
      settled: [[sent.gnExtras.idEnvio, rejected.gnExtras.idEnvio]],
    });
  });

  test("when a body carries only notices, then nothing goes to the Pix received", async () => {
    expect((await post({ pix: [rejected] })).status).toBe(200);
    expect(await handedOff()).toEqual({ received: [], settled: [[rejected.gnExtras.idEnvio]] });
  });

  test.each([
    ["a notice without its outcome", { ...sent, status: undefined }, "/pix/1"],
    ["a notice with an outcome Efí has not", { ...sent, status: "PAGO" }, "/pix/1/status"],
    ["a notice whose amount is not money", { ...sent, valor: "99,20" }, "/pix/1/valor"],
    ["a notice without its id", { ...sent, gnExtras: { idEnvio: 7 } }, "/pix/1/gnExtras/idEnvio"],
    ["a received Pix without its time", { ...received, horario: undefined }, "/pix/1"],
  ])(
    "when %s arrives beside a valid entry, then the body is refused (400, naming the entry) and nothing is handed on",
    async (_, entry, where) => {
      const answer = await post({ pix: [received, JSON.parse(JSON.stringify(entry)) as unknown] });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(where);
      expect(await handedOff()).toEqual({ received: [], settled: [] });
    },
  );
});
