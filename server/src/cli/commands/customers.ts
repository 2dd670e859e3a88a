/** `admin customers …`: the operator's notes and tags on a merchant's customer. */
import type { Command } from "commander";
import { unwrap } from "../clients.js";
import { type CliContext, list } from "../context.js";

const fields = ["customerId", "tags", "notes"];

export function registerCustomers(program: Command, ctx: CliContext): void {
  const customers = program.command("customers").description("notas e etiquetas do operador sobre clientes");

  customers
    .command("notes")
    .description("mostra as notas e etiquetas de um cliente")
    .argument("<customerId>", "o cliente (cus_…)")
    .action(async (id: string) => {
      const notes = unwrap(await ctx.operator().GET("/admin/v1/customers/{id}/notes", { params: { path: { id } } }));
      ctx.out.record(notes, fields);
    });

  customers
    .command("set-notes")
    .description("substitui as notas e etiquetas de um cliente")
    .argument("<customerId>", "o cliente (cus_…)")
    .option("--notes <text>", "texto livre (omita para apagar)")
    .option("--tags <list>", "etiquetas separadas por vírgula (omita para apagar)", list)
    .action(async (id: string, o: { notes?: string; tags?: string[] }) => {
      const body = { notes: o.notes ?? null, tags: o.tags ?? [] };
      const notes = unwrap(
        await ctx.operator().PUT("/admin/v1/customers/{id}/notes", { params: { path: { id } }, body }),
      );
      ctx.out.record(notes, fields);
    });
}
