/**
 * The part of the view model the PostgreSQL store's template reads (templates/postgres.gen.ts.hbs):
 * its table spec and migrations as values (printed by src/emit/print.ts), and per resource
 * operation whether a change is guarded by the status the server checked.
 */
import type { ApiModel, HandlerMethodView, ResourceView } from "../../model/api-model.js";
import type { MigrationSpec } from "#runtime/migrate.gen.js";
import type { TableSpec } from "#runtime/postgres.gen.js";
import { objectOf } from "../../model/json.js";

/** What templates/postgres.gen.ts.hbs reads beside the ApiModel. */
export interface PostgresView {
  /** `{ collection: TableSpec }`. */
  readonly tables: { readonly [collection: string]: TableSpec };
  /** `[{ name, statements }]`. */
  readonly migrations: readonly MigrationSpec[];
  readonly resources: readonly (ResourceView & { readonly methods: readonly (HandlerMethodView & { readonly guarded: boolean })[] })[];
}

/** The PostgreSQL part of the view of a document whose migrations are `migrations` (its tables: the model's). */
export function postgresView(view: ApiModel, document: unknown, migrations: readonly MigrationSpec[]): PostgresView {
  // Why: an action whose state some status refuses declares 409; only then may a change that
  // lost a race be refused (an action every state allows simply applies).
  const declares409 = new Set<string>();
  for (const item of Object.values(objectOf(objectOf(document).paths))) {
    for (const operation of Object.values(objectOf(item))) {
      if (Object.hasOwn(objectOf(objectOf(operation).responses), "409")) declares409.add(String(objectOf(operation).operationId));
    }
  }
  return {
    tables: Object.fromEntries(
      view.tables.tables.map((t) => [
        t.collection,
        { table: t.table, idKind: t.idKind, columns: t.columns.map((c) => ({ field: c.field, column: c.column, kind: c.kind })) },
      ]),
    ),
    migrations,
    resources: view.resources.map((resource) => ({
      ...resource,
      methods: resource.methods.map((method) => ({ ...method, guarded: declares409.has(method.operationId) })),
    })),
  };
}
