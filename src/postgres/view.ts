/**
 * The part of the view model the PostgreSQL store's template reads (templates/postgres.gen.ts.hbs):
 * its table spec and migrations as literals, and per resource operation whether a change is
 * guarded by the status the server checked.
 */
import { literal } from "../model/escape.js";
import { constStatement, laidOut, literalDoc, objectDoc, propertyDoc, typeLiteralDoc } from "../render/layout.js";
import type { ApiView, HandlerMethodView, ResourceView } from "../model/view.js";
import { type Migration, statementsOf } from "./migrations.js";
import type { SchemaSnapshot } from "./tables.js";

type Json = { readonly [key: string]: unknown };
const asJson = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});

/** What templates/postgres.gen.ts.hbs reads beside the ApiView. */
export interface PostgresView {
  /** `{ collection: TableSpec }` as a literal. */
  readonly tables: string;
  /** `[{ name, statements }]` as a literal. */
  readonly migrations: string;
  /** The declarations of both, in prettier's layout where `laidOut` (src/render/layout.ts). */
  readonly tablesStatement: string;
  readonly migrationsStatement: string;
  readonly laidOut: boolean;
  readonly resources: readonly (ResourceView & { readonly methods: readonly (HandlerMethodView & { readonly guarded: boolean })[] })[];
}

/** An ApiView with the PostgreSQL store's part. */
export type ApiViewWithPostgres = ApiView & { readonly postgres: PostgresView };

/** The PostgreSQL part of the view of a document whose tables are `snapshot` and whose migrations are `migrations`. */
export function postgresView(view: ApiView, document: unknown, snapshot: SchemaSnapshot, migrations: readonly Migration[]): PostgresView {
  // Why: an action whose state some status refuses declares 409; only then may a change that
  // lost a race be refused (an action every state allows simply applies).
  const declares409 = new Set<string>();
  for (const item of Object.values(asJson(asJson(document).paths))) {
    for (const operation of Object.values(asJson(item))) {
      if (Object.hasOwn(asJson(asJson(operation).responses), "409")) declares409.add(String(asJson(operation).operationId));
    }
  }
  return {
    ...postgresStatements(
      Object.fromEntries(
        snapshot.tables.map((t) => [
          t.collection,
          { table: t.table, idKind: t.idKind, columns: t.columns.map((c) => ({ field: c.field, column: c.column, kind: c.kind })) },
        ]),
      ),
      migrations.map((m) => ({ name: m.name.replace(/\.sql$/, ""), statements: statementsOf(m.sql) })),
    ),
    resources: view.resources.map((resource) => ({
      ...resource,
      methods: resource.methods.map((method) => ({ ...method, guarded: declares409.has(method.operationId) })),
    })),
  };
}

/** The table spec and the migrations as literals, and their declarations laid out (issue 14). */
function postgresStatements(tables: Record<string, unknown>, migrations: readonly unknown[]) {
  const tablesType = "{ readonly [collection: string]: TableSpec }";
  const tablesStatement = laidOut(
    () =>
      constStatement(
        ["tables: ", typeLiteralDoc(["readonly [collection: string]: TableSpec"])],
        objectDoc(Object.entries(tables).map(([key, value]) => propertyDoc(key, value))),
      ),
    () => `export const tables: ${tablesType} = ${literal(tables)};`,
  );
  const migrationsStatement = laidOut(
    () => constStatement("migrations: readonly MigrationSpec[]", literalDoc(migrations)),
    () => `export const migrations: readonly MigrationSpec[] = ${literal(migrations)};`,
  );
  return {
    tables: literal(tables),
    migrations: literal(migrations),
    tablesStatement: tablesStatement.text,
    migrationsStatement: migrationsStatement.text,
    laidOut: tablesStatement.sure && migrationsStatement.sure,
  };
}
