/**
 * The bank's callbacks: `POST {webhookUrl}/pix` with `{ pix: [...] }` (the Inter dialect: a bare
 * array), over HTTPS with the bank's own client certificate (mutual TLS), trusting the CAs the
 * operator or the test configured. A failed delivery is retried a few times, as banks do. Faults
 * apply to the next N callbacks: delay, drop, duplicate, reorder (held, then sent in reverse),
 * forge (a callback that lies: an end-to-end id the bank never settled and another amount; for
 * Efí's notice of a sent Pix, the other outcome).
 *
 * Efí also tells a sent Pix's outcome on `/pix` (an entry with `gnExtras.idEnvio`, checked against
 * our document of its payouts, generated/bank/efi-payouts.yaml).
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import type { ClientRequest } from "node:http";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { parse as parseYaml } from "yaml";
import type { IssuedCertificate } from "./certs.js";
import type { Dialect } from "./api.js";
import type { components as EfiComponents } from "../../generated/bank/efi-payouts.js";
import { alnum, valor, cents, type Pix, type WebhookPixBody } from "./wire.js";

/** Efí's notice of a sent Pix's outcome, an entry of `pix` beside the Pix received. */
type EfiSent = EfiComponents["schemas"]["PixEnviadoNotificado"];
/** An entry of a `/pix` callback. */
export type CallbackEntry = Pix | EfiSent;

const namesTransfer = (entry: CallbackEntry): entry is EfiSent =>
  "gnExtras" in entry && "idEnvio" in (entry.gnExtras ?? {});

export type CallbackFaultKind = "delay" | "drop" | "duplicate" | "reorder" | "forge";

export interface CallbackFault {
  kind: CallbackFaultKind;
  /** How many of the next callbacks it applies to. */
  count: number;
  /** For `delay`: how long each waits (default 1000 ms). */
  delayMs?: number;
}

/** One delivery attempt (or a dropped callback), as the control API lists it. */
export interface CallbackRecord {
  id: number;
  at: string;
  url: string;
  body: unknown;
  endToEndIds: string[];
  attempt: number;
  /** The receiver's status; null when it was not reached (dropped, refused, timed out). */
  status: number | null;
  error?: string;
  fault?: CallbackFaultKind;
  /** Whether the body is the document's callback (`WebhookPixBody`, or an array of `Pix` for inter). */
  bodyValid: boolean;
}

interface Validators {
  object: ValidateFunction;
  array: ValidateFunction;
  /** Pix Automático's bodies: `{ recs }` on `/rec`, `{ cobsr }` on `/cobr` (every dialect). */
  rec: ValidateFunction;
  cobr: ValidateFunction;
  /** One of the standard's Pix, and Efí's notice of a sent Pix (our document of its payouts). */
  pix: ValidateFunction;
  efiSent: ValidateFunction;
}

let validators: Validators | undefined;

/** The document's callback body, compiled once: the fake's callbacks cannot drift from it either. */
function callbackValidators(): Validators {
  if (validators !== undefined) return validators;
  const document = parseYaml(readFileSync(new URL("../../generated/bank/pix-api.yaml", import.meta.url), "utf8")) as {
    components: unknown;
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv, { mode: "full" });
  ajv.addFormat("int32", { type: "number", validate: Number.isInteger });
  ajv.addFormat("int64", { type: "number", validate: Number.isInteger });
  ajv.addSchema({ components: document.components }, "pix-api");
  const efi = parseYaml(readFileSync(new URL("../../generated/bank/efi-payouts.yaml", import.meta.url), "utf8")) as {
    components: unknown;
  };
  ajv.addSchema({ components: efi.components }, "efi-payouts");
  validators = {
    object: ajv.compile({
      allOf: [
        { type: "object", required: ["pix"] },
        { $ref: "pix-api#/components/requestBodies/WebhookPixBody/content/application~1json/schema" },
      ],
    }),
    array: ajv.compile({ type: "array", items: { $ref: "pix-api#/components/schemas/Pix" } }),
    rec: ajv.compile({
      allOf: [
        { type: "object", required: ["recs"] },
        { $ref: "pix-api#/components/requestBodies/WebhookRecBody/content/application~1json/schema" },
      ],
    }),
    cobr: ajv.compile({
      allOf: [
        { type: "object", required: ["cobsr"] },
        { $ref: "pix-api#/components/requestBodies/WebhookCobRBody/content/application~1json/schema" },
      ],
    }),
    pix: ajv.compile({ $ref: "pix-api#/components/schemas/Pix" }),
    efiSent: ajv.compile({ $ref: "efi-payouts#/components/schemas/PixEnviadoNotificado" }),
  };
  return validators;
}

export interface CallbackOptions {
  dialect: Dialect;
  /** The bank's own client certificate for its callbacks. */
  certificate: () => IssuedCertificate;
  /** CAs trusted for the receiver's server certificate (empty: Node's default CAs). */
  trust: () => string[];
  timeoutMs: number;
  /** Attempts after the first when the receiver fails (non-2xx or unreachable). */
  retries: number;
  /**
   * `kept` (the default): a connection to the receiver serves the callbacks after it, as any HTTP
   * client's pool does (the receiver's `Keep-Alive` timeout closes it); `new`: a connection, and a
   * full mutual-TLS handshake, for each callback.
   */
  connections?: CallbackConnections;
}

/** Whether a callback's connection is kept for the next ones (see `CallbackOptions.connections`). */
export type CallbackConnections = "kept" | "new";

interface Pending {
  url: string;
  pix: CallbackEntry[];
}

/** A notice of Pix Automático: its path, its body and the ids it names (the log's `endToEndIds`). */
interface Notice {
  kind: "rec" | "cobr";
  items: object[];
  ids: string[];
}

export class CallbackSender {
  readonly log: CallbackRecord[] = [];
  readonly faults: CallbackFault[] = [];
  private nextId = 1;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly requests = new Set<ClientRequest>();
  private readonly inFlight = new Set<Promise<void>>();
  private reorderHeld: Pending[] = [];
  private closed = false;
  /**
   * The kept connections: Node's pool keys them by the TLS options (certificate, key, CAs), so a
   * rotated certificate or a new trust opens new ones.
   */
  private readonly agent = new Agent({ keepAlive: true });
  private connections: CallbackConnections;

  constructor(private readonly options: CallbackOptions) {
    this.connections = options.connections ?? "kept";
  }

  /** From now on, callbacks keep their connections (`kept`) or open one each (`new`). */
  setConnections(connections: CallbackConnections): void {
    this.connections = connections;
    if (connections === "new") this.agent.destroy();
  }

  /** Notifies `webhookUrl` (as registered) of these Pix (or Efí's sent ones), with whatever fault is armed. */
  notify(webhookUrl: string, pix: CallbackEntry[]): void {
    if (this.closed) return;
    const url = `${webhookUrl.replace(/\/+$/, "")}/pix`;
    const fault = this.faults.find((f) => f.count > 0);
    if (fault !== undefined) fault.count -= 1;
    switch (fault?.kind) {
      case "drop":
        this.record({ url, body: this.body(pix), pix, attempt: 0, status: null, error: "descartado", fault: "drop" });
        return;
      case "delay":
        this.later(fault.delayMs ?? 1000, () => this.track(this.deliver(url, pix, "delay")));
        return;
      case "duplicate":
        this.track(this.deliver(url, pix, "duplicate"));
        this.track(this.deliver(url, pix, "duplicate"));
        return;
      case "forge":
        this.track(this.deliver(url, pix.map(forge), "forge"));
        return;
      case "reorder":
        this.reorderHeld.push({ url, pix });
        if (fault.count === 0) this.releaseReordered();
        return;
      default:
        this.track(this.deliver(url, pix));
    }
  }

  /**
   * Notifies `{webhookUrl}/rec` (`{ recs }`) or `{webhookUrl}/cobr` (`{ cobsr }`) of Pix
   * Automático, with whatever fault is armed (a reorder is sent at once; a forged notice says the
   * recurrence was cancelled, or the attempt paid, when the bank's records say otherwise).
   */
  notifyRecurrence(webhookUrl: string, kind: "rec" | "cobr", items: object[], ids: string[]): void {
    if (this.closed) return;
    const url = `${webhookUrl.replace(/\/+$/, "")}/${kind}`;
    const notice: Notice = { kind, items, ids };
    const fault = this.faults.find((f) => f.count > 0);
    if (fault !== undefined) fault.count -= 1;
    switch (fault?.kind) {
      case "drop":
        this.recordNotice(url, notice, 0, { status: null, error: "descartado" }, "drop");
        return;
      case "delay":
        this.later(fault.delayMs ?? 1000, () => this.track(this.deliverNotice(url, notice, "delay")));
        return;
      case "duplicate":
        this.track(this.deliverNotice(url, notice, "duplicate"));
        this.track(this.deliverNotice(url, notice, "duplicate"));
        return;
      case "forge":
        this.track(
          this.deliverNotice(url, { ...notice, items: items.map((item) => forgeNotice(kind, item)) }, "forge"),
        );
        return;
      default:
        this.track(this.deliverNotice(url, notice, fault?.kind));
    }
  }

  private noticeBody(notice: Notice): object {
    return notice.kind === "rec" ? { recs: notice.items } : { cobsr: notice.items };
  }

  private recordNotice(
    url: string,
    notice: Notice,
    attempt: number,
    outcome: { status: number | null; error?: string },
    fault?: CallbackFaultKind,
  ): void {
    const body = this.noticeBody(notice);
    const check = callbackValidators()[notice.kind];
    const bodyValid = check(body);
    if (!bodyValid) process.stderr.write(`fake-bank: callback fora do documento: ${JSON.stringify(check.errors)}\n`);
    this.log.push({
      id: this.nextId++,
      at: new Date().toISOString(),
      url,
      body,
      endToEndIds: notice.ids,
      attempt,
      ...outcome,
      ...(fault === undefined ? {} : { fault }),
      bodyValid,
    });
    if (this.log.length > 10_000) this.log.splice(0, this.log.length - 10_000);
  }

  private async deliverNotice(url: string, notice: Notice, fault?: CallbackFaultKind): Promise<void> {
    const body = this.noticeBody(notice);
    for (let attempt = 1; attempt <= 1 + this.options.retries && !this.closed; attempt += 1) {
      const outcome = await this.post(url, body);
      this.recordNotice(url, notice, attempt, outcome, fault);
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) return;
      await new Promise<void>((resolve) => this.later(200 * 2 ** (attempt - 1), resolve));
    }
  }

  /** Sends the callbacks a `reorder` fault still holds, last first. */
  releaseReordered(): void {
    const held = this.reorderHeld.reverse();
    this.reorderHeld = [];
    for (const pending of held) this.track(this.deliver(pending.url, pending.pix, "reorder"));
  }

  /** Resolves when no delivery is under way (delayed ones included). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0 || this.timers.size > 0) {
      await Promise.race([...this.inFlight, new Promise((resolve) => setTimeout(resolve, 10))]);
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const req of this.requests) req.destroy();
    this.requests.clear();
    this.agent.destroy();
  }

  private body(pix: CallbackEntry[]): WebhookPixBody | CallbackEntry[] {
    return this.options.dialect === "inter" ? pix : ({ pix } as WebhookPixBody);
  }

  /** Whether a `/pix` body is the documents': the standard's, with Efí's notices of sent Pix checked by ours. */
  private bodyValid(body: unknown, pix: CallbackEntry[]): boolean {
    const checks = callbackValidators();
    const sent = pix.filter(namesTransfer);
    if (sent.length === 0) {
      const check = checks[this.options.dialect === "inter" ? "array" : "object"];
      if (check(body)) return true;
      process.stderr.write(`fake-bank: callback fora do documento: ${JSON.stringify(check.errors)}\n`);
      return false;
    }
    for (const entry of pix) {
      const check = namesTransfer(entry) ? checks.efiSent : checks.pix;
      if (!check(entry)) {
        process.stderr.write(`fake-bank: callback fora do documento: ${JSON.stringify(check.errors)}\n`);
        return false;
      }
    }
    return this.options.dialect === "efi";
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) run();
    }, ms);
    this.timers.add(timer);
  }

  private track(promise: Promise<void>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private record(
    entry: Omit<CallbackRecord, "id" | "at" | "endToEndIds" | "bodyValid"> & { pix: CallbackEntry[] },
  ): void {
    const { pix, ...rest } = entry;
    const bodyValid = this.bodyValid(entry.body, pix);
    this.log.push({
      id: this.nextId++,
      at: new Date().toISOString(),
      endToEndIds: pix.map((p) => p.endToEndId),
      bodyValid,
      ...rest,
    });
    if (this.log.length > 10_000) this.log.splice(0, this.log.length - 10_000);
  }

  private async deliver(url: string, pix: CallbackEntry[], fault?: CallbackFaultKind): Promise<void> {
    const body = this.body(pix);
    for (let attempt = 1; attempt <= 1 + this.options.retries && !this.closed; attempt += 1) {
      const outcome = await this.post(url, body);
      this.record({ url, body, pix, attempt, ...outcome, ...(fault === undefined ? {} : { fault }) });
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) return;
      await new Promise<void>((resolve) => this.later(200 * 2 ** (attempt - 1), resolve));
    }
  }

  private post(url: string, body: unknown): Promise<{ status: number | null; error?: string }> {
    const certificate = this.options.certificate();
    const trust = this.options.trust();
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve) => {
      let req: ClientRequest;
      try {
        req = request(url, {
          method: "POST",
          cert: certificate.certPem,
          key: certificate.keyPem,
          ...(trust.length === 0 ? {} : { ca: trust }),
          agent: this.connections === "kept" ? this.agent : false,
          timeout: this.options.timeoutMs,
          headers: { "content-type": "application/json", "content-length": payload.length },
        });
      } catch (error) {
        resolve({ status: null, error: String(error) });
        return;
      }
      this.requests.add(req);
      const done = (outcome: { status: number | null; error?: string }) => {
        this.requests.delete(req);
        resolve(outcome);
      };
      req.on("timeout", () => req.destroy(new Error(`sem resposta em ${this.options.timeoutMs} ms`)));
      req.on("error", (error) => done({ status: null, error: error.message }));
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => done({ status: res.statusCode ?? null }));
        res.on("error", (error) => done({ status: null, error: error.message }));
      });
      req.end(payload);
    });
  }
}

/** A notice that lies: the recurrence cancelled by its payer, or the attempt paid. */
function forgeNotice(kind: "rec" | "cobr", item: object): object {
  const at = new Date().toISOString();
  if (kind === "rec") {
    const rec = item as { atualizacao: { status: string; data: string }[] };
    return {
      ...item,
      status: "CANCELADA",
      atualizacao: [...rec.atualizacao, { status: "CANCELADA", data: at }],
      encerramento: { cancelamento: { solicitante: "USUARIO_PAGADOR", codigo: "SLDB", descricao: "Forjado" } },
    };
  }
  const cobr = item as { tentativas?: { status: string; atualizacao: { status: string; data: string }[] }[] };
  return {
    ...item,
    tentativas: (cobr.tentativas ?? []).map((t) => ({
      ...t,
      status: "PAGA",
      atualizacao: [...t.atualizacao, { status: "PAGA", data: at }],
    })),
  };
}

/**
 * A callback that lies: an end-to-end id the bank never settled, and one cent more; for Efí's
 * notice of a sent Pix, the outcome it did not have.
 */
function forge(entry: CallbackEntry): CallbackEntry {
  if (namesTransfer(entry)) {
    const paid = entry.status !== "REALIZADO";
    const { erro: _erro, ...extras } = entry.gnExtras;
    return {
      ...entry,
      status: paid ? "REALIZADO" : "NAO_REALIZADO",
      horario: paid ? new Date().toISOString() : null,
      gnExtras: paid ? extras : { ...extras, erro: { codigo: "AC03", origem: "Forjado", motivo: "Forjado" } },
    };
  }
  const pix = entry;
  const { devolucoes: _devolucoes, ...rest } = pix;
  return { ...rest, endToEndId: `E${pix.endToEndId.slice(1, 21)}${alnum(11)}`, valor: valor(cents(pix.valor) + 1) };
}
