// What the expansion does to the whole document once its parts are built: URLs of the security
// schemes that resolve where the API serves them, and no component that nothing uses.

type Json = Record<string, unknown>;

const SCHEMES = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A URL the declaration gives as a path this API serves (`/token`), as OpenAPI resolves it: a
 * relative reference resolves against the server URL by RFC 3986 (so `/token` under
 * `https://vet.example.com/api` would be `https://vet.example.com/token`, not the endpoint at
 * `/api/token`), and the published 3.1 schema asks for an absolute URI. Joined to the first server
 * (the one the generated server takes its base path from): absolute when that server is, else an
 * absolute path under its path. Absolute URLs are kept as declared.
 */
export function servedUrl(url: string, firstServer: string | undefined): string {
  if (!url.startsWith("/") || url.startsWith("//") || firstServer === undefined) return url;
  const base = firstServer.replace(/\/+$/, "");
  if (SCHEMES.test(base) || base.startsWith("/")) return `${base}${url}`;
  return url;
}

/**
 * Every `$ref` to `#/components/<kind>/<name>` under `value`, by kind. Why no set of the objects
 * walked: the expansion shares no object between two places of its document (expandDeclaration,
 * checked by test/compile/expand/expand-json.test.ts), so each is met once; keeping a third of a
 * million of them in a set to be sure cost twice the walk itself at 1000 resources.
 */
function collectRefs(value: object, into: Map<string, Set<string>>): void {
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (typeof item === "object" && item !== null) collectRefs(item, into);
    return;
  }
  for (const key of Object.keys(value)) {
    const item = (value as Json)[key];
    if (key === "$ref" && typeof item === "string") {
      const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(item);
      if (match) into.get(match[1]!)?.add(match[2]!.replaceAll("~1", "/").replaceAll("~0", "~"));
    } else if (typeof item === "object" && item !== null) collectRefs(item, into);
  }
}

/**
 * The document without the schemas and responses no operation reaches (a `PetPatch` where the
 * resource offers no update): linters count each as an unused component. A schema that carries
 * `x-codegen-resource` stays: the renderer reads the resource from it. For an expansion only
 * (see collectRefs).
 */
export function withoutUnusedComponents(document: Json): Json {
  const components = document["components"] as Json | undefined;
  if (components === undefined) return document;
  const pruned = ["schemas", "responses"] as const;
  const used = new Map<string, Set<string>>(pruned.map((kind) => [kind, new Set<string>()]));
  const roots = Object.entries(document).filter(([key]) => key !== "components");
  collectRefs(
    roots.map(([, value]) => value),
    used,
  );
  for (const [kind, value] of Object.entries(components)) {
    if (!(pruned as readonly string[]).includes(kind) && typeof value === "object" && value !== null) collectRefs(value, used);
  }
  const schemas = (components["schemas"] ?? {}) as Record<string, Json>;
  for (const [name, schema] of Object.entries(schemas)) if (schema["x-codegen-resource"] !== undefined) used.get("schemas")!.add(name);
  // A reached component may reach others: follow until nothing new is reached.
  const visited = new Map<string, Set<string>>(pruned.map((kind) => [kind, new Set<string>()]));
  for (let grew = true; grew;) {
    grew = false;
    for (const kind of pruned) {
      const table = (components[kind] ?? {}) as Json;
      for (const name of [...used.get(kind)!]) {
        if (visited.get(kind)!.has(name) || !Object.hasOwn(table, name)) continue;
        visited.get(kind)!.add(name);
        const component = table[name];
        if (typeof component === "object" && component !== null) collectRefs(component, used);
        grew = true;
      }
    }
  }
  for (const kind of pruned) {
    const table = components[kind] as Json | undefined;
    if (table === undefined) continue;
    for (const name of Object.keys(table)) if (!used.get(kind)!.has(name)) delete table[name];
    if (Object.keys(table).length === 0) delete components[kind];
  }
  return document;
}
