import type { Domain } from "../../domain/service.js";
import { callerIn, type TagHandlers } from "./context.js";

/** The home screen's figures of one mode (spec/dashboard/home.tsp). */
export function homeHandlers(domain: Domain): TagHandlers<"Home"> {
  return {
    getHomeFigures: async ({ params }, ctx) => ({
      status: 200,
      body: await domain.homeFigures.figures(callerIn(ctx, params.mode).scope),
    }),
  };
}
