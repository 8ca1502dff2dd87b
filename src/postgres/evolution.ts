/**
 * The diagnostics of a change of the tables, at the declaration's lines: a change no migration
 * captures (`generate --check`), and a change refused because stored rows would not survive it
 * (`codegen migrate new`, `serve --db`), with the fix named (docs/migrations.md).
 */
import { type Diagnostic, type SourceLocation, diagnostic } from "../diagnostics/index.js";
import type { NamedChange, Refusal, SchemaChange } from "../emit/postgres/migrations.js";

/** Where a path of the declaration stands (the nearest place that exists), or undefined without a declaration. */
export type Locate = (path: readonly (string | number)[]) => SourceLocation | undefined;

/** The declaration's path of a change: its field (the status machine's key), else its resource, else the resources. */
function pathOf(change: { readonly collection: string; readonly field?: string; readonly status?: true }): string[] {
  if (change.collection === "") return ["resources"];
  if (change.status) return ["resources", change.collection, "status"];
  return change.field === undefined ? ["resources", change.collection] : ["resources", change.collection, "fields", change.field];
}

/** The diagnostic of a refused change. */
export function refusalDiagnostic(refusal: Refusal, locate: Locate): Diagnostic {
  const at = (path: string[]) => locate(path);
  switch (refusal.rule) {
    case "required-added":
    case "became-required":
      return diagnostic(`migrate/${refusal.rule}`, { field: refusal.field, resource: refusal.collection }, at(pathOf(refusal)));
    case "lossy-type":
      return diagnostic("migrate/lossy-type", { field: refusal.field, from: refusal.from, to: refusal.to }, at(pathOf(refusal)));
    case "id-type":
      return diagnostic("migrate/id-type", { resource: refusal.collection, from: refusal.from, to: refusal.to }, at(["resources", refusal.collection, "id"]));
  }
}

/** One diagnostic per change the declaration holds that no migration of `dir` captures. */
export function uncapturedDiagnostics(change: SchemaChange, dir: string, locate: Locate): Diagnostic[] {
  return change.named.map((named: NamedChange) => diagnostic("migrate/not-captured", { change: named.text, dir }, locate(pathOf(named))));
}
