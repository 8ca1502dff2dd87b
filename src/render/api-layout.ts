import { literal, literalAt, propertyKey, stringLiteral } from "../model/escape.js";
import { arrayDoc, constStatement, laidOut, literalDoc, propertyTable, typeLiteralDoc } from "./layout.js";

/** The data of api.gen.ts, as values (the literals are made here, laid out as prettier would). */
export interface ApiData {
  readonly schemas: readonly (readonly [name: string, node: unknown])[];
  readonly resources: readonly (readonly [collection: string, spec: unknown])[];
  readonly routes: readonly unknown[];
  readonly securitySchemes: unknown;
  readonly index: unknown;
}

/** The statements of api.gen.ts, and whether all of them are in prettier's layout (then the file is final). */
export interface ApiStatements {
  readonly schemas: string;
  readonly resources: string;
  readonly routes: string;
  readonly securitySchemes: string;
  readonly index: string;
  readonly final: boolean;
}

/**
 * api.gen.ts's five declarations. Each fallback is the text the template wrote before issue 14
 * (a table's line break after `{` is part of it: prettier keeps the table broken).
 */
export function apiStatements(data: ApiData): ApiStatements {
  const tableText = (entries: readonly string[]) => (entries.length === 0 ? "{\n}" : `{\n${entries.map((e) => `  ${e},\n`).join("")}}`);
  const schemas = laidOut(
    () => constStatement("schemas: SchemaTable", propertyTable(data.schemas)),
    () => `export const schemas: SchemaTable = ${tableText(data.schemas.map(([name, node]) => `${propertyKey(name)}: ${literalAt(name, node)}`))};`,
  );
  const resourcesType = "{ readonly [collection: string]: ResourceSpec }";
  const resources = laidOut(
    () =>
      constStatement("resources", [
        propertyTable(data.resources, { plain: true }),
        " satisfies ",
        typeLiteralDoc(["readonly [collection: string]: ResourceSpec"]),
      ]),
    () =>
      `export const resources = ${tableText(data.resources.map(([collection, spec]) => `${stringLiteral(collection)}: ${literal(spec)}`))} satisfies ${resourcesType};`,
  );
  const routes = laidOut(
    () => constStatement("routes: readonly RouteSpec[]", arrayDoc(data.routes)),
    () => `export const routes: readonly RouteSpec[] = [\n${data.routes.map((route) => `  ${literal(route)},\n`).join("")}];`,
  );
  const securitySchemes = laidOut(
    () => constStatement("securitySchemes", [literalDoc(data.securitySchemes), " satisfies ", typeLiteralDoc(["readonly [name: string]: SchemeSpec"])]),
    () => `export const securitySchemes = ${literal(data.securitySchemes)} satisfies { readonly [name: string]: SchemeSpec };`,
  );
  const index = laidOut(
    () => constStatement("index: readonly Link[]", literalDoc(data.index)),
    () => `export const index: readonly Link[] = ${literal(data.index)};`,
  );
  return {
    schemas: schemas.text,
    resources: resources.text,
    routes: routes.text,
    securitySchemes: securitySchemes.text,
    index: index.text,
    final: [schemas, resources, routes, securitySchemes, index].every((s) => s.sure),
  };
}
