// The API's codes in the words the dashboard shows.

import { transactionStatusLabels } from "../../../generated/rules";

export const auditActionLabel: Record<string, string> = {
  "user.logged_in_from_new_ip": "Entrada de um IP novo",
  "user.password_changed": "Senha trocada",
  "user.password_reset": "Senha redefinida",
  "user.two_factor_enabled": "Verificação em duas etapas ativada",
  "user.two_factor_disabled": "Verificação em duas etapas desativada",
  "user.step_up_failed": "Código de confirmação incorreto",
  "user.step_up_locked": "Confirmação por código bloqueada; sessões encerradas",
  "user.recovery_codes_regenerated": "Novos códigos de recuperação",
  "user.profile_updated": "Perfil alterado",
  "user.notices_updated": "Notificações por e-mail alteradas",
  "account.created": "Conta criada",
  "account.updated": "Conta alterada",
  "account.security_updated": "Regras de segurança alteradas",
  "account.verification_requested": "Verificação pedida",
  "account.verification_rejected": "Verificação recusada",
  "member.invited": "Membro convidado",
  "member.invitation_revoked": "Convite revogado",
  "member.joined": "Membro entrou",
  "member.role_changed": "Papel alterado",
  "member.removed": "Membro removido",
  "api_key.created": "Chave de API criada",
  "api_key.updated": "Chave de API alterada",
  "api_key.rolled": "Chave de API trocada",
  "api_key.revoked": "Chave de API revogada",
  "webhook_endpoint.created": "Endpoint de webhook criado",
  "webhook_endpoint.updated": "Endpoint de webhook alterado",
  "webhook_endpoint.deleted": "Endpoint de webhook removido",
  "webhook_endpoint.secret_revealed": "Segredo de webhook revelado",
  "webhook_endpoint.secret_rotated": "Segredo de webhook trocado",
  "webhook_endpoint.test_sent": "Evento de teste enviado",
  "event.resent": "Evento reenviado",
  "withdrawal.requested": "Saque pedido",
  "refund.created": "Reembolso feito",
  "payment_link.created": "Link de pagamento criado",
  "payment_link.deactivated": "Link de pagamento desativado",
  "recurrence.created": "Recorrência criada",
  "recurrence.cancelled": "Recorrência cancelada",
  "customer.notes_updated": "Notas de cliente alteradas",
};

export const label = (table: Record<string, string>, code: string): string => table[code] ?? code;

/**
 * A charge's status, as the transaction list and Home show it: the document's words
 * (`x-labels`, the CSV export's too), and a refund's states as the audit log names them.
 */
export const statusLabel: Record<string, string> = {
  ...transactionStatusLabels,
  REFUNDED: "Reembolsada",
  PARTIALLY_REFUNDED: "Reembolsada em parte",
};
