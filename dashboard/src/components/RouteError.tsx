import { Link, useRouteError } from "react-router";
import { errorMessage } from "../api/errors";

/** What a screen that failed to render shows, instead of a blank page. */
export function RouteError() {
  const error = useRouteError();
  return (
    <main className="stack">
      <h1>Algo deu errado nesta tela</h1>
      <p>{errorMessage(error)}</p>
      <p>
        <Link to="/">Voltar ao início</Link> ou recarregue a página.
      </p>
    </main>
  );
}
