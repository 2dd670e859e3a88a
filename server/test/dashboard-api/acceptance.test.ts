import type { AddressInfo } from "node:net";
import { Secret, TOTP } from "otpauth";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createDashboardClient, createPixClient, type DashboardClient } from "../../../client/src/index.js";
import { freePort } from "../../../scripts/pg-cluster.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

// Issue 25's acceptance, as a new merchant would go through it with the generated clients only
// (the partner package's `createDashboardClient` and `createPixClient`), against a real server
// process whose e-mails go to an SMTP server on loopback: sign up, confirm the e-mail from the
// message received, turn on two-factor authentication, create a test key, charge with it, pay in
// the sandbox, find the charge in the dashboard's list and timeline, export it as CSV, invite a
// viewer who reads it but cannot create a key, and ask for verification.

/** The plain text of a received message: headers dropped, soft line breaks and `=XX` decoded. */
function textOf(raw: string): string {
  const [, ...body] = raw.split(/\r?\n\r?\n/);
  const joined = body.join("\n\n").replace(/=\r?\n/g, "");
  return Buffer.from(
    joined.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

const codeOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate();

describe("a new merchant through the dashboard API with the generated clients (issue 25's acceptance)", () => {
  const mail: { to: string[]; raw: string }[] = [];
  let smtp: SMTPServer;
  let server: ServerProcess;
  const adminToken = "adm_acceptance_0123456789abcdefghij";

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          mail.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const port = await freePort();
    server = await startServerProcess({
      name: "dashboard-acceptance",
      port,
      env: {
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}?from=${encodeURIComponent("Pix <avisos@pix.example.test>")}`,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ADMIN_TOKEN: adminToken,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  /** The first link of the last message to `to` whose path is `path`, waited for (sending follows the commit). */
  async function linkTo(to: string, path: string): Promise<URL> {
    for (let i = 0; i < 200; i++) {
      const message = mail.findLast((m) => m.to.includes(to) && textOf(m.raw).includes(path));
      if (message) {
        const found = new RegExp(`https?://\\S+${path.replace(/[/.]/g, "\\$&")}\\?token=[A-Za-z0-9_-]+`).exec(
          textOf(message.raw),
        );
        if (found) return new URL(found[0]);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no e-mail to ${to} with a link to ${path}`);
  }

  test("when a merchant signs up and works through the dashboard, then every step answers as documented", async () => {
    const owner = {
      name: "Ana Pereira",
      businessName: "Loja da Ana",
      email: "ana.pereira@loja-acceptance.example.com",
      password: "sabiá laranja 2026 ipê",
    };
    const dashboard: DashboardClient = createDashboardClient({ baseUrl: server.baseUrl });

    // Sign up: a user, its account, a session at once.
    const signedUp = await dashboard.POST("/dashboard/v1/sign-up", { body: owner });
    expect(signedUp.response.status, JSON.stringify(signedUp.error)).toBe(201);
    expect(dashboard.hasSession()).toBe(true);

    // Confirm the e-mail address from the message the SMTP server received.
    const confirmation = await linkTo(owner.email, "/confirmar-email");
    const confirmed = await dashboard.POST("/dashboard/v1/email-confirmations", {
      body: { token: confirmation.searchParams.get("token")! },
    });
    expect(confirmed.response.status).toBe(204);
    const session = await dashboard.GET("/dashboard/v1/session");
    expect(session.data?.user.emailConfirmed).toBe(true);

    // Two-factor authentication on, with the authenticator's code.
    const started = await dashboard.POST("/dashboard/v1/me/two-factor", { body: { currentPassword: owner.password } });
    expect(started.response.status).toBe(200);
    const turnedOn = await dashboard.POST("/dashboard/v1/me/two-factor/confirm", {
      body: { code: codeOf(started.data!.secret) },
    });
    expect(turnedOn.response.status).toBe(200);
    expect(turnedOn.data?.recoveryCodes).toHaveLength(10);
    // Turning it on is no step-up: the first dangerous operation asks for a code (here a recovery
    // code, the authenticator's having just been taken).
    const steppedUp = await dashboard.POST("/dashboard/v1/session/step-up", {
      body: { code: turnedOn.data!.recoveryCodes[0]! },
    });
    expect(steppedUp.response.status, JSON.stringify(steppedUp.error)).toBe(201);

    // A test key (its secret in this answer only), a charge made with it through the public API,
    // paid in the sandbox.
    const key = await dashboard.POST("/dashboard/v1/modes/{mode}/api-keys", {
      params: { path: { mode: "test" } },
      body: { name: "Loja virtual" },
    });
    expect(key.response.status, JSON.stringify(key.error)).toBe(201);
    expect(key.data?.secret).toMatch(/^svc_test_/);
    const api = createPixClient({ apiKey: key.data!.secret, baseUrl: server.baseUrl });
    const charge = await api.POST("/api/v1/charges/pix", {
      body: {
        amountCents: 12_990,
        description: "Pedido 1001",
        customer: {
          name: "Carla Souza",
          email: "carla@example.com",
          phone: "11987654321",
          documentType: "CPF",
          document: "52998224725",
        },
      },
    });
    expect(charge.response.status, JSON.stringify(charge.error)).toBe(201);
    const id = charge.data!.id;
    const paid = await api.POST("/api/v1/sandbox/transactions/{id}/pay", { params: { path: { id } } });
    expect(paid.data?.status).toBe("PAID");
    const keys = await dashboard.GET("/dashboard/v1/modes/{mode}/api-keys", { params: { path: { mode: "test" } } });
    const listedKey = keys.data?.data.find((k) => k.id === key.data!.id);
    expect(listedKey?.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(keys.data)).not.toContain(key.data!.secret);

    // The charge in the dashboard's list and its timeline; nothing of it in production.
    const listed = await dashboard.GET("/dashboard/v1/modes/{mode}/transactions", {
      params: { path: { mode: "test" } },
    });
    expect(listed.data?.data.map((t) => t.id)).toContain(id);
    const inProduction = await dashboard.GET("/dashboard/v1/modes/{mode}/transactions", {
      params: { path: { mode: "production" } },
    });
    expect(inProduction.data?.data).toEqual([]);
    const timeline = await dashboard.GET("/dashboard/v1/modes/{mode}/transactions/{id}", {
      params: { path: { mode: "test", id } },
    });
    expect(timeline.data?.transaction.status).toBe("PAID");
    expect(timeline.data?.timeline.map((entry) => entry.event?.type)).toContain("transaction.paid");

    // Exported as CSV, as a spreadsheet set to pt-BR reads it.
    const csv = await dashboard.GET("/dashboard/v1/modes/{mode}/transactions.csv", {
      params: { path: { mode: "test" } },
      parseAs: "arrayBuffer",
    });
    expect(csv.response.status).toBe(200);
    expect(csv.response.headers.get("content-type")).toMatch(/^text\/csv/);
    const bytes = new Uint8Array(csv.data as ArrayBuffer);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = new TextDecoder().decode(bytes.slice(3)).trim().split("\r\n");
    expect(rows).toHaveLength(2);
    const row = rows[1]!.split(";");
    expect(row).toContain(id);
    expect(row).toContain("129,90");
    expect(row).toContain("12990");

    // Invite a viewer (a change of the team: the step-up above still holds), who accepts from
    // the e-mail, reads the account, and is refused what its role does not allow.
    const viewerEmail = "bruno.lima@loja-acceptance.example.com";
    const invited = await dashboard.POST("/dashboard/v1/team/invitations", {
      body: { email: viewerEmail, role: "viewer" },
    });
    expect(invited.response.status, JSON.stringify(invited.error)).toBe(201);
    const invitation = await linkTo(viewerEmail, "/aceitar-convite");
    const viewer = createDashboardClient({ baseUrl: server.baseUrl });
    const accepted = await viewer.POST("/dashboard/v1/invitations/accept", {
      body: { token: invitation.searchParams.get("token")!, name: "Bruno Lima", password: "jabuticaba no quintal 77" },
    });
    expect(accepted.response.status, JSON.stringify(accepted.error)).toBe(201);
    expect(viewer.hasSession()).toBe(true);
    const seenByViewer = await viewer.GET("/dashboard/v1/account");
    expect(seenByViewer.data?.name).toBe(owner.businessName);
    const viewerInvites = await viewer.POST("/dashboard/v1/team/invitations", {
      body: { email: "outra@loja-acceptance.example.com", role: "owner" },
    });
    expect(viewerInvites.response.status).toBe(403);
    expect(viewerInvites.error?.code).toBe("ROLE_FORBIDDEN");
    const viewerSees = await viewer.GET("/dashboard/v1/modes/{mode}/transactions/{id}", {
      params: { path: { mode: "test", id } },
    });
    expect(viewerSees.data?.transaction.id).toBe(id);
    const viewerKey = await viewer.POST("/dashboard/v1/modes/{mode}/api-keys", {
      params: { path: { mode: "test" } },
      body: { name: "Chave do Bruno" },
    });
    expect(viewerKey.response.status).toBe(403);
    expect(viewerKey.error?.code).toBe("ROLE_FORBIDDEN");
    const members = await dashboard.GET("/dashboard/v1/team/members");
    expect(members.data?.data.map((m) => [m.email, m.role])).toEqual(
      expect.arrayContaining([
        [owner.email, "owner"],
        [viewerEmail, "viewer"],
      ]),
    );

    // Ask for verification; the platform's operator verifies the account through the operator API.
    const requested = await dashboard.POST("/dashboard/v1/account/verification", {
      body: { legalName: "Loja da Ana Comércio Ltda", document: "11222333000181" },
    });
    expect(requested.response.status, JSON.stringify(requested.error)).toBe(201);
    expect(requested.data?.status).toBe("requested");
    const account = await dashboard.GET("/dashboard/v1/account");
    const operator = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
    const pending = await fetch(`${server.baseUrl}/admin/v1/verification-requests`, { headers: operator });
    expect(pending.status).toBe(200);
    const waiting = (await pending.json()) as { data: { accountId: string; version: number }[] };
    const reviewed = waiting.data.find((r) => r.accountId === account.data!.id);
    expect(reviewed?.version).toBe(1);
    const verified = await fetch(`${server.baseUrl}/admin/v1/accounts/${account.data!.id}`, {
      method: "PATCH",
      headers: operator,
      body: JSON.stringify({ verified: true, verificationRequestVersion: reviewed?.version }),
    });
    expect(verified.status).toBe(200);
    const afterwards = await dashboard.GET("/dashboard/v1/account");
    expect(afterwards.data?.verification.status).toBe("verified");
  }, 60_000);
});
