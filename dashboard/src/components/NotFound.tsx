import { Link } from "react-router";
import { Page } from "./ui";
import { useModePath } from "../lib/useMode";

export function NotFound() {
  const to = useModePath();
  return (
    <Page title="Página não encontrada">
      <p>Este endereço não existe no painel.</p>
      <p>
        <Link to={to()}>Voltar ao início</Link>
      </p>
    </Page>
  );
}
