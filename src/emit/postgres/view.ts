/**
 * The part of the view model the PostgreSQL store's template reads (templates/postgres.gen.ts.hbs):
 * its table spec and migrations as values (printed by src/emit/print.ts), and per resource
 * operation whether a change is guarded by the status the server checked.
 */
import type { ApiModel, HandlerMethodView, ResourceView } from "../../model/api-model.js";
import type { MigrationSpec } from "#runtime/migrate.gen.js";
import type { TableSpec } from "#runtime/postgres.gen.js";

/** What templates/postgres.gen.ts.hbs reads beside the ApiModel. */
export interface PostgresView {
  /** `{ collection: TableSpec }`. */
  readonly tables: { readonly [collection: string]: TableSpec };
  /** `[{ name, statements }]`. */
  readonly migrations: readonly MigrationSpec[];
  readonly resources: readonly (ResourceView & { readonly methods: readonly (HandlerMethodView & { readonly guarded: boolean })[] })[];
}

/** The PostgreSQL part of the view of an API whose migrations are `migrations` (its tables: the model's). */
export function postgresView(view: ApiModel, migrations: readonly MigrationSpec[]): PostgresView {
  // Why: an action whose state some status refuses declares 409; only then may a change that
  // lost a race be refused (an action every state allows simply applies). Read from the routes,
  // whose operations hold the statuses their document declares.
  const declares409 = new Set<string>();
  for (const route of view.api.routes) {
    for (const operation of Object.values(route.methods)) if (Object.hasOwn(operation.responses, "409")) declares409.add(operation.operationId);
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
