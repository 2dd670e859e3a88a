import { statusLabel } from "../lib/labels";
import { Badge } from "./ui";

const tone: Record<string, "ok" | "warn" | "danger" | "neutral"> = {
  PAID: "ok",
  WAITING_PAYMENT: "warn",
  PENDING: "warn",
  PROCESSING: "warn",
  EXPIRED: "neutral",
  CANCELLED: "neutral",
  FAILED: "danger",
};

/** A charge's status in words, coloured. */
export function StatusBadge(props: { status: string }) {
  return <Badge tone={tone[props.status] ?? "neutral"}>{statusLabel[props.status] ?? props.status}</Badge>;
}
