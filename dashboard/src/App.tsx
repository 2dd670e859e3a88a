import { QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { Navigate, RouterProvider, createBrowserRouter } from "react-router";
import { createAppQueryClient } from "./api/session";
import { AppLayout, RequireMode, RequireSession } from "./components/AppLayout";
import { AcceptInvitation } from "./pages/auth/AcceptInvitation";
import { ConfirmEmail } from "./pages/auth/ConfirmEmail";
import { LogIn } from "./pages/auth/LogIn";
import { CompletePasswordReset, RequestPasswordReset } from "./pages/auth/PasswordReset";
import { SignUp } from "./pages/auth/SignUp";
import { Balance } from "./pages/Balance";
import { CustomerPage, Customers } from "./pages/Customers";
import { Disputes } from "./pages/Disputes";
import { Developers } from "./pages/developers/Developers";
import { Events } from "./pages/developers/Events";
import { Keys } from "./pages/developers/Keys";
import { Webhooks } from "./pages/developers/Webhooks";
import { Home } from "./pages/Home";
import { NotFound } from "./pages/NotFound";
import { PaymentLinkPage, PaymentLinks } from "./pages/PaymentLinks";
import { TransactionPage } from "./pages/Transaction";
import { Transactions } from "./pages/Transactions";
import { RouteError } from "./pages/RouteError";
import { Account } from "./pages/settings/Account";
import { AccountRules } from "./pages/settings/AccountRules";
import { AuditLog } from "./pages/settings/AuditLog";
import { Password } from "./pages/settings/Password";
import { Profile } from "./pages/settings/Profile";
import { Sessions } from "./pages/settings/Sessions";
import { SettingsLayout } from "./pages/settings/SettingsLayout";
import { Team } from "./pages/settings/Team";
import { TwoFactor } from "./pages/settings/TwoFactor";

// The app's addresses, under /painel (README "Dashboard"): the pages before the log-in, then
// every screen under its mode, /painel/teste/… or /painel/producao/….
const router = createBrowserRouter(
  [
    {
      errorElement: <RouteError />,
      children: [
        { path: "/", element: <Navigate to="/teste" replace /> },
        { path: "/entrar", element: <LogIn /> },
        { path: "/cadastro", element: <SignUp /> },
        { path: "/confirmar-email", element: <ConfirmEmail /> },
        { path: "/recuperar-senha", element: <RequestPasswordReset /> },
        { path: "/redefinir-senha", element: <CompletePasswordReset /> },
        { path: "/aceitar-convite", element: <AcceptInvitation /> },
        {
          element: <RequireSession />,
          children: [
            {
              path: "/:modo",
              element: <RequireMode />,
              children: [
                {
                  element: <AppLayout />,
                  children: [
                    { index: true, element: <Home /> },
                    { path: "transacoes", element: <Transactions /> },
                    { path: "transacoes/:id", element: <TransactionPage /> },
                    { path: "links", element: <PaymentLinks /> },
                    { path: "links/:id", element: <PaymentLinkPage /> },
                    { path: "clientes", element: <Customers /> },
                    { path: "clientes/:id", element: <CustomerPage /> },
                    { path: "saldo", element: <Balance /> },
                    { path: "disputas", element: <Disputes /> },
                    {
                      path: "desenvolvedores",
                      element: <Developers />,
                      children: [
                        { index: true, element: <Navigate to="chaves" replace /> },
                        { path: "chaves", element: <Keys /> },
                        { path: "webhooks", element: <Webhooks /> },
                        { path: "eventos", element: <Events /> },
                      ],
                    },
                    {
                      path: "configuracoes",
                      element: <SettingsLayout />,
                      children: [
                        { index: true, element: <Navigate to="perfil" replace /> },
                        { path: "perfil", element: <Profile /> },
                        { path: "senha", element: <Password /> },
                        { path: "seguranca", element: <TwoFactor /> },
                        { path: "sessoes", element: <Sessions /> },
                        { path: "regras", element: <AccountRules /> },
                        { path: "conta", element: <Account /> },
                        { path: "verificacao", element: <Navigate to="../conta" replace /> },
                        { path: "equipe", element: <Team /> },
                        { path: "auditoria", element: <AuditLog /> },
                      ],
                    },
                    { path: "*", element: <NotFound /> },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
  ],
  { basename: "/painel" },
);

export function App() {
  const [client] = useState(createAppQueryClient);
  return (
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
