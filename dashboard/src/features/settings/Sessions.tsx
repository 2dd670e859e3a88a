import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api, forgetCsrfToken } from "../../api/client";
import { sessionKey } from "../../api/session";
import { type Column, CursorPager, DataTable } from "../../components/DataTable";
import { FormError } from "../../components/FormError";
import { Badge, Card, ErrorMessage, Loading } from "../../components/ui";
import { describeUserAgent, formatDateTime } from "../../lib/format";
import { usePagedQuery } from "../../api/queries";

type Entry = NonNullable<ReturnType<typeof useSessions>["data"]>["data"][number];

/** A page of the user's sessions that still last (50), from the address's cursor. */
const useSessions = () =>
  usePagedQuery((page) => api.queryOptions("get", "/dashboard/v1/sessions", { params: { query: page } }));

export function Sessions() {
  const sessions = useSessions();
  const end = api.useMutation("delete", "/dashboard/v1/sessions/{id}");
  const client = useQueryClient();
  const navigate = useNavigate();
  const columns: Column<Entry>[] = [
    {
      header: "Dispositivo",
      cell: (s) => (
        <>
          {describeUserAgent(s.userAgent)} {s.current ? <Badge tone="ok">esta sessão</Badge> : null}
        </>
      ),
    },
    { header: "IP", cell: (s) => s.ip ?? "—" },
    { header: "Entrou em", cell: (s) => formatDateTime(s.createdAt) },
    { header: "Último uso", cell: (s) => formatDateTime(s.lastSeenAt) },
    {
      header: "Ação",
      cell: (s) => (
        <button
          type="button"
          className="secondary"
          disabled={end.isPending}
          onClick={() =>
            end.mutate(
              { params: { path: { id: s.id } } },
              {
                onSuccess: () => {
                  if (s.current) {
                    forgetCsrfToken();
                    client.clear();
                    client.setQueryData(sessionKey, null);
                    navigate("/entrar", { replace: true });
                  } else void sessions.refetch();
                },
              },
            )
          }
        >
          {s.current ? "Sair desta" : "Encerrar"}
        </button>
      ),
    },
  ];
  return (
    <Card title="Sessões abertas" id="sessoes">
      <p>Onde você está conectado agora. Encerre qualquer sessão que você não reconheça e troque a senha.</p>
      <FormError error={end.error} />
      {sessions.isPending ? (
        <Loading />
      ) : sessions.isError ? (
        <ErrorMessage error={sessions.error} retry={() => void sessions.refetch()} />
      ) : (
        <>
          <DataTable caption="Lista de sessões" columns={columns} rows={sessions.data.data} rowKey={(s) => s.id} />
          <CursorPager
            hasMore={sessions.data.hasMore}
            lastId={sessions.data.data.at(-1)?.id}
            count={sessions.data.data.length}
          />
        </>
      )}
    </Card>
  );
}
