import type { Role } from "../../src/domain/identity/model.js";
import { expectStatus, type TestServer } from "../harness.js";
import { addMember, type DashboardBrowser, dashboardBrowser } from "./dashboard.js";

/** A member of the account with `role` (written into the store by `addMember`), logged in. */
export async function member(server: TestServer, accountId: string, role: Role): Promise<DashboardBrowser> {
  const { email, password } = await addMember(server, accountId, role);
  const browser = dashboardBrowser(server.baseUrl);
  expectStatus(await browser.api.POST("/dashboard/v1/session", { body: { email, password } }), 201);
  return browser;
}
