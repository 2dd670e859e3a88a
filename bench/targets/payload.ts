/** About 1 KB of JSON, shaped like a Transaction. */
export const kilobyteJson = {
  id: "txn_0000000000000000000000",
  status: "WAITING_PAYMENT",
  amountCents: 8990,
  feeCents: 80,
  netAmountCents: 8910,
  description: "Pedido 1234 — camiseta azul tamanho M",
  pix: {
    qrCode:
      "00020101021226850014br.gov.bcb.pix2563pix.example.com/qr/v2/cobv/9d36b84f-c70b-478f-b95c-12729b90ca255204000053039865406089.905802BR5912LOJA EXEMPLO6009SAO PAULO62070503***6304ABCD",
    copyPaste: "00020101021226850014br.gov.bcb.pix2563pix.example.com/qr/v2/cobv/9d36b84f-c70b-478f",
  },
  customer: { name: "Maria da Silva", email: "maria@example.com", phone: "11987654321", document: "52998224725" },
  metadata: { orderId: "1234", channel: "web" },
  livemode: false,
  expiresAt: "2026-11-24T12:00:00.000Z",
  paidAt: null,
  createdAt: "2026-11-23T12:00:00.000Z",
  updatedAt: "2026-11-23T12:00:00.000Z",
};
