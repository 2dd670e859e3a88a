import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./context.js";

/** The session's user's own e-mail notices (spec/dashboard/notices.tsp). */
export function noticeHandlers(domain: Domain): TagHandlers<"Notices"> {
  const { noticePreferences } = domain;
  return {
    getNoticePreferences: async (_request, { actor }) => ({ status: 200, body: await noticePreferences.get(actor) }),
    updateNoticePreferences: async ({ body }, { actor }) => ({
      status: 200,
      body: await noticePreferences.update(actor, body),
    }),
  };
}
