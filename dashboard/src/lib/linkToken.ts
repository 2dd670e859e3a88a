import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";

/**
 * The one-time token of the page's e-mail link (`?token=…`: confirmation, reset, invitation), read
 * once when the page opens. It leaves the address bar and the history at once (a history entry
 * replaced, not added), so it is not seen over a shoulder, kept in the history, or sent on in a
 * bookmark or a shared address (issue 33 §7).
 */
export function useLinkToken(): string {
  const [search, setSearch] = useSearchParams();
  const [token] = useState(() => search.get("token") ?? "");
  useEffect(() => {
    if (!search.has("token")) return;
    const rest = new URLSearchParams(search);
    rest.delete("token");
    setSearch(rest, { replace: true });
  }, [search, setSearch]);
  return token;
}
