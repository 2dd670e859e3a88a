import { MutationCache, QueryCache, QueryClient, useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import { fetchClient, forgetCsrfToken } from "./client";
import { ApiError, isApiError } from "./errors";
import type { Role, Session } from "./types";

export type { Role, Session };

export const sessionKey = ["session"] as const;

/** The session, or null when there is none (401): the app's guard sends the person to log in. */
async function readSession(): Promise<Session | null> {
  try {
    const { data } = await fetchClient.GET("/dashboard/v1/session");
    return data ?? null;
  } catch (error) {
    if (isApiError(error) && error.status === 401) return null;
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: readSession, staleTime: 5 * 60_000 });
}

/**
 * The session the guard (RequireSession) let through, given to the screens behind it: when it
 * ends, the guard leaves at once, and no screen renders without one in between.
 */
export const SessionContext = createContext<Session | null>(null);

/** The session, behind RequireSession. */
export function useCurrentSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useCurrentSession outside RequireSession");
  return session;
}

/** Keeps a session a log-in, sign-up or step-up answered, without asking the server again. */
export function useRememberSession() {
  const client = useQueryClient();
  return (session: Session) => client.setQueryData(sessionKey, session);
}

/** Why the person is back at the log-in page (shown there). */
let sessionEndedReason: string | null = null;

/**
 * The app's query client: a 401 from any call means the session is gone (expired, ended from
 * another session, the password changed): every cached answer is dropped and the guard sends the
 * person to log in, saying why.
 */
export function createAppQueryClient(): QueryClient {
  const onError = (error: unknown) => {
    if (!(error instanceof ApiError) || error.status !== 401) return;
    if (client.getQueryData(sessionKey) === null) return;
    sessionEndedReason = "Sua sessão terminou (expirou ou foi encerrada em outro lugar). Entre novamente.";
    forgetCsrfToken();
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
    client.setQueryData(sessionKey, null);
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        // A screen opened asks again (money moves outside the app); the cache shows the last answer meanwhile.
        staleTime: 0,
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      },
      mutations: { retry: false },
    },
  });
  return client;
}

/** Takes the reason once (the log-in page shows it, then it is gone). */
export function takeSessionEndedReason(): string | null {
  const reason = sessionEndedReason;
  sessionEndedReason = null;
  return reason;
}

export const roleLabel: Record<Role, string> = {
  owner: "Proprietário",
  admin: "Administrador",
  developer: "Desenvolvedor",
  finance: "Financeiro",
  viewer: "Leitura",
};
