/**
 * The webhook listener: where the bank calls with received Pix (`POST {webhookUrl}/pix`, the
 * callback of `PUT /webhook/{chave}` in the API Pix). Its own HTTPS port with mutual TLS: the
 * bank's CA is the only one trusted and a client certificate is demanded, so a caller without the
 * bank's certificate is refused in the TLS handshake, before a byte of its request is read.
 *
 * A callback is a hint, not proof (another customer of the same bank can aim its webhook here):
 * the body is checked against the document's `WebhookPixBody` (or the dialect's shape), answered
 * 200 at once, and each end-to-end id handed to `onReceived`, which confirms it with the bank
 * (`GET /pix/{e2eid}`) before anything is credited. A devolução's notice comes the same way, in
 * `devolucoes` inside its Pix, so its Pix's id is handed on too. What a lost hint misses, the
 * reconciler reads.
 *
 * Efí tells a sent Pix's outcome on the same `/pix` (issue 36 §1): an entry with `gnExtras.idEnvio`
 * names a transfer of ours, is checked against our document of Efí's payouts
 * (`PixEnviadoNotificado`), and its id goes to `onPayoutsSettled`, which reads the transfer back
 * before a withdrawal changes; the payout job reads what a lost notice misses.
 *
 * The bank's connection is kept for its next callbacks (keep-alive, 5 s idle). When the operator
 * connects another bank (another CA or dialect), a connection its handshake admitted under the old
 * one admits nothing more: the idle ones are closed at once, and a callback still arriving on one
 * is answered 421 (another connection, handshaken under the new bank, may carry it) and closed,
 * handing nothing on.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { components } from "../../../generated/bank/pix-api.js";
import type { components as EfiPayouts } from "../../../generated/bank/efi-payouts.js";
import { callbackValidators } from "../../../generated/bank/callback-validators.js";
import type { BankDialect } from "../domain/bank/index.js";
import { dialects } from "./dialects.js";

type Pix = components["schemas"]["Pix"];
type EfiSent = EfiPayouts["schemas"]["PixEnviadoNotificado"];
type WebhookRecBody = components["requestBodies"]["WebhookRecBody"]["content"]["application/json"];
type WebhookCobRBody = components["requestBodies"]["WebhookCobRBody"]["content"]["application/json"];

/** The bank side of the listener: whose certificates it accepts and how its body is shaped. */
export interface ListenerBank {
  /** The bank's CA (PEM): the only issuer of client certificates accepted; null accepts none. */
  ca: string | null;
  dialect: BankDialect;
  /** The path of the registered webhookUrl (the bank posts to `{path}/pix`); default "". */
  path?: string | undefined;
}

export interface WebhookListenerOptions {
  port: number;
  host?: string;
  /** This listener's own server certificate and key (PEM), for the host name in webhookUrl. */
  serverCertificate: { cert: string; key: string };
  bank: ListenerBank;
  /** Receives the end-to-end ids of one callback (a hint: confirm each with the bank). */
  onReceived: (endToEndIds: string[]) => Promise<void> | void;
  /**
   * Pix Automático (issue 36): the bank's ids of the recurrences a callback on `{path}/rec` names,
   * and the txids of the cycle charges one on `{path}/cobr` names (hints: each is read back).
   * Absent: those paths answer 404.
   */
  onRecurrences?: (recIds: string[]) => Promise<void> | void;
  onCycleCharges?: (txids: string[]) => Promise<void> | void;
  /**
   * Efí's notices of sent Pix (issue 36 §1): the `idEnvio`s of one callback, each a transfer of a
   * withdrawal (a hint: each is read back). Absent: such entries are answered and ignored.
   */
  onPayoutsSettled?: (transferIds: string[]) => Promise<void> | void;
  /** Where a failed hand-off is told (the callback was answered already). */
  onError?: (error: unknown) => void;
  /** Largest body read (default 1 MiB): the bank groups Pix, but not without bound. */
  bodyLimitBytes?: number;
}

export interface WebhookListener {
  /** The port bound (0 in the options lets the system choose). */
  port: number;
  /** The connection changed: a new CA, dialect or path, for the next handshakes and callbacks. */
  update(bank: ListenerBank): void;
  close(): Promise<void>;
}

/** Why a check refused the body it was last given, as the 400's text says it. */
function whyRefused(check: { errors?: { instancePath: string; message?: string }[] | null }): string {
  return check.errors?.map((e) => `${e.instancePath} ${e.message ?? ""}`).join("; ") ?? "inválido";
}

/** Whether an entry of a callback names a transfer of ours (Efí's `gnExtras.idEnvio`). */
function namesTransfer(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const extras = (entry as { gnExtras?: unknown }).gnExtras;
  return typeof extras === "object" && extras !== null && "idEnvio" in extras;
}

/**
 * The Pix received and (Efí) the sent Pix's notices of a callback in the dialect's shape, or why it
 * is not one.
 */
function pixOf(body: unknown, dialect: BankDialect): { received: Pix[]; sent: EfiSent[] } | string {
  const { array, object, pix, efiSent } = callbackValidators;
  if (dialects[dialect].callbackBody === "array") return array(body) ? { received: body, sent: [] } : whyRefused(array);
  if (dialect !== "efi") return object(body) ? { received: body.pix ?? [], sent: [] } : whyRefused(object);
  // Efí's `pix` holds both: each entry is checked by what it is.
  if (typeof body !== "object" || body === null || !Array.isArray((body as { pix?: unknown }).pix)) {
    return object(body) ? { received: [], sent: [] } : whyRefused(object);
  }
  const received: Pix[] = [];
  const sent: EfiSent[] = [];
  for (const [i, entry] of (body as { pix: unknown[] }).pix.entries()) {
    const check = namesTransfer(entry) ? efiSent : pix;
    if (!check(entry)) return `/pix/${i}${whyRefused(check)}`;
    if (check === efiSent) sent.push(entry as EfiSent);
    else received.push(entry as Pix);
  }
  return { received, sent };
}

/**
 * The bank's connection is kept for its next callback, except after a body left unread and on a
 * connection admitted for a bank no longer connected (421).
 */
function answer(res: ServerResponse, status: number, text?: string): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    ...(status === 413 || status === 421 ? { connection: "close" } : {}),
  });
  res.end(text ?? "");
}

/** Starts the listener; resolves once it is bound. */
export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  let bank = options.bank;
  /** Which bank each connection's handshake admitted it for: `generation` counts the banks connected. */
  let generation = 0;
  const admittedFor = new WeakMap<object, number>();

  const server: Server = createServer(
    {
      cert: options.serverCertificate.cert,
      key: options.serverCertificate.key,
      ...(bank.ca === null ? {} : { ca: bank.ca }),
      // Mutual TLS: no certificate, or one the bank's CA did not issue, ends the handshake.
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
      handshakeTimeout: 5_000,
      requestTimeout: 10_000,
      headersTimeout: 5_000,
      keepAliveTimeout: 5_000,
    },
    (req, res) => void receive(req, res),
  );
  server.maxConnections = 256;
  // Without the bank's CA no certificate is the bank's: the connection ends before it is read.
  server.on("secureConnection", (socket) => {
    if (bank.ca === null) socket.destroy();
    else admittedFor.set(socket, generation);
  });

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? "/", "https://listener.invalid").pathname;
    const base = (bank.path ?? "").replace(/\/+$/, "");
    const kind =
      pathname === `${base}/pix`
        ? "pix"
        : pathname === `${base}/rec` && options.onRecurrences
          ? "rec"
          : pathname === `${base}/cobr` && options.onCycleCharges
            ? "cobr"
            : null;
    if (kind === null) return answer(res, 404);
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return answer(res, 405);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > bodyLimit) return answer(res, 413);
        chunks.push(chunk);
      }
    } catch {
      return; // The bank went away mid-body: nothing to answer.
    }
    if (admittedFor.get(req.socket) !== generation) return answer(res, 421, "conexão de outro banco");
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return answer(res, 400, "corpo não é JSON");
    }
    if (kind !== "pix") return recurrenceNotice(res, kind, body);
    const pix = pixOf(body, bank.dialect);
    if (typeof pix === "string") return answer(res, 400, `corpo fora do padrão: ${pix}`);
    answer(res, 200);
    const endToEndIds = [...new Set(pix.received.map((p) => p.endToEndId))];
    const transferIds = [...new Set(pix.sent.map((p) => p.gnExtras.idEnvio))];
    await Promise.all([
      endToEndIds.length > 0 ? hand(() => options.onReceived(endToEndIds)) : undefined,
      transferIds.length > 0 && options.onPayoutsSettled
        ? hand(() => options.onPayoutsSettled?.(transferIds))
        : undefined,
    ]);
  }

  /** Hands a callback's ids on (it was answered already): a failure is told, never thrown. */
  async function hand(run: () => Promise<void> | void): Promise<void> {
    try {
      await run();
    } catch (error) {
      options.onError?.(error);
    }
  }

  /** A callback on `/rec` or `/cobr`: answered at once, its ids handed on. */
  async function recurrenceNotice(res: ServerResponse, kind: "rec" | "cobr", body: unknown): Promise<void> {
    const check = kind === "rec" ? callbackValidators.recs : callbackValidators.cobsr;
    if (!check(body)) return answer(res, 400, `corpo fora do padrão: ${whyRefused(check)}`);
    answer(res, 200);
    if (kind === "rec") {
      const ids = [...new Set(((body as WebhookRecBody).recs ?? []).map((r) => r.idRec))];
      if (ids.length > 0) await hand(() => options.onRecurrences?.(ids));
    } else {
      const ids = [...new Set(((body as WebhookCobRBody).cobsr ?? []).map((c) => c.txid))];
      if (ids.length > 0) await hand(() => options.onCycleCharges?.(ids));
    }
  }

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port, options.host ?? "127.0.0.1", () => {
      server.off("error", fail);
      done();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
    update(next) {
      const another = next.ca !== bank.ca || next.dialect !== bank.dialect;
      bank = next;
      const { cert, key } = options.serverCertificate;
      server.setSecureContext(next.ca === null ? { cert, key } : { cert, key, ca: next.ca });
      if (another) {
        generation += 1;
        server.closeIdleConnections();
      }
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
