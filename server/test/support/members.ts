import type { Role } from "../../src/domain/identity-model.js";
import { newId } from "../../src/domain/ids.js";
import { hashPassword } from "../../src/domain/passwords.js";
import { expectStatus, type TestServer } from "../harness.js";
import { type DashboardBrowser, dashboardBrowser } from "./dashboard.js";

/** A member of the account with `role`, logged in (invitations are the team's; the store is written directly). */
export async function member(server: TestServer, accountId: string, role: Role): Promise<DashboardBrowser> {
  const email = `membro.${newId("usr")}@loja.example.com.br`.toLowerCase();
  const password = "frase longa do membro da equipe";
  const at = server.clock.now().toISOString();
  const passwordHash = await hashPassword(password);
  await server.store.transaction((tx) =>
    tx.users.insert({
      id: newId("usr"),
      accountId,
      email,
      name: "João Lima",
      role,
      passwordHash,
      emailConfirmedAt: at,
      totpSecret: null,
      totpPendingSecret: null,
      totpEnabledAt: null,
      totpLastStep: null,
      recoveryCodeDigests: [],
      createdAt: at,
      updatedAt: at,
    }),
  );
  const browser = dashboardBrowser(server.baseUrl);
  expectStatus(await browser.api.POST("/dashboard/v1/session", { body: { email, password } }), 201);
  return browser;
}
