import { QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { Navigate, RouterProvider, createBrowserRouter } from "react-router";
import { createAppQueryClient } from "./api/session";
import { AppLayout, RequireMode, RequireSession } from "./components/AppLayout";
import { AcceptInvitation } from "./features/auth/AcceptInvitation";
import { ConfirmEmail } from "./features/auth/ConfirmEmail";
import { LogIn } from "./features/auth/LogIn";
import { CompletePasswordReset, RequestPasswordReset } from "./features/auth/PasswordReset";
import { SignUp } from "./features/auth/SignUp";
import { Balance } from "./features/balance/Balance";
import { CustomerPage, Customers } from "./features/customers/Customers";
import { Disputes } from "./features/disputes/Disputes";
import { Developers } from "./features/developers/Developers";
import { Events } from "./features/developers/events/Events";
import { Keys } from "./features/developers/keys/Keys";
import { RequestLogPage, RequestLogs } from "./features/developers/request-logs/RequestLogs";
import { Webhooks } from "./features/developers/webhooks/Webhooks";
import { Home } from "./features/home/Home";
import { CounterCharge } from "./features/counter/CounterCharge";
import { NewCharge } from "./features/counter/NewCharge";
import { Statement } from "./features/statement/Statement";
import { NotFound } from "./components/NotFound";
import { PaymentLinkPage, PaymentLinks } from "./features/payment-links/PaymentLinks";
import { NewRecurrence } from "./features/recurrences/NewRecurrence";
import { RecurrencePage } from "./features/recurrences/Recurrence";
import { Recurrences } from "./features/recurrences/Recurrences";
import { NewDueDateCharge } from "./features/due-date-charges/NewDueDateCharge";
import { TransactionPage } from "./features/transactions/Transaction";
import { Transactions } from "./features/transactions/Transactions";
import { RouteError } from "./components/RouteError";
import { Account } from "./features/settings/Account";
import { AccountRules } from "./features/settings/AccountRules";
import { AuditLog } from "./features/settings/AuditLog";
import { Password } from "./features/settings/Password";
import { Profile } from "./features/settings/Profile";
import { Sessions } from "./features/settings/Sessions";
import { Notifications } from "./features/settings/Notifications";
import { SettingsLayout } from "./features/settings/SettingsLayout";
import { Team } from "./features/settings/Team";
import { TwoFactor } from "./features/settings/TwoFactor";

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
                // The counter's charge on the whole screen, outside the frame: only the QR code for the payer.
                { path: "balcao/:id", element: <CounterCharge /> },
                {
                  element: <AppLayout />,
                  children: [
                    { index: true, element: <Home /> },
                    { path: "balcao", element: <NewCharge /> },
                    { path: "transacoes", element: <Transactions /> },
                    { path: "transacoes/vencimento/nova", element: <NewDueDateCharge /> },
                    { path: "transacoes/:id", element: <TransactionPage /> },
                    { path: "links", element: <PaymentLinks /> },
                    { path: "links/:id", element: <PaymentLinkPage /> },
                    { path: "recorrencias", element: <Recurrences /> },
                    { path: "recorrencias/nova", element: <NewRecurrence /> },
                    { path: "recorrencias/:id", element: <RecurrencePage /> },
                    { path: "clientes", element: <Customers /> },
                    { path: "clientes/:id", element: <CustomerPage /> },
                    { path: "saldo", element: <Balance /> },
                    { path: "extrato", element: <Statement /> },
                    { path: "disputas", element: <Disputes /> },
                    {
                      path: "desenvolvedores",
                      element: <Developers />,
                      children: [
                        { index: true, element: <Navigate to="chaves" replace /> },
                        { path: "chaves", element: <Keys /> },
                        { path: "webhooks", element: <Webhooks /> },
                        { path: "eventos", element: <Events /> },
                        { path: "registros", element: <RequestLogs /> },
                        { path: "registros/:id", element: <RequestLogPage /> },
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
                        { path: "notificacoes", element: <Notifications /> },
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
