/**
 * The one catalogue of diagnostics: every code codegen can report, with its message written once.
 * Codes are stable (tests, editors and users' scripts match on them); messages may improve.
 */

/** Backquote a name in a message. */
const q = (name: string | number): string => `\`${String(name)}\``;

/** A list of names as prose: `a`, `b` or `c` (`word`: "and" for all of them). */
export function orList(names: readonly string[], word = "or"): string {
  const quoted = names.map(q);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} ${word} ${quoted[quoted.length - 1]}`;
}

export const catalogue = {
  // Reading the file.
  "input/not-found": (a: { path: string }) => `cannot read ${q(a.path)}: no such file`,
  "input/is-directory": (a: { path: string }) => `${q(a.path)} is a directory, not a declaration file`,
  "input/unreadable": (a: { path: string; reason: string }) => `cannot read ${q(a.path)}: ${a.reason}`,
  "input/not-text": () => "the file is not UTF-8 text",
  "input/empty": () => "the file is empty: a declaration needs at least `codegen`, `info` and `resources`",
  "input/too-deep": (a: { limit: number }) => `the document nests more than ${a.limit} levels deep`,
  "yaml/syntax": (a: { message: string }) => `YAML syntax error: ${a.message}`,
  "yaml/duplicate-key": (a: { key: string }) => `duplicate key ${q(a.key)}: each key may appear once in a map`,
  "yaml/non-string-key": () => "map keys must be strings; quote this one",
  "yaml/unknown-alias": (a: { alias: string }) => `the alias ${q("*" + a.alias)} names no anchor (\`&${a.alias}\`) before it`,
  "yaml/alias-expansion": (a: { limit: number }) =>
    `the aliases of this document expand to more than ${a.limit} values (aliases of aliases grow exponentially); write the repeated part out, or alias it fewer times`,
  "yaml/merge-key": () => "`<<` merge keys are YAML 1.1, which YAML 1.2 dropped: write the keys out (an alias `*name` alone copies a whole value)",
  "yaml/multiple-documents": () => "a declaration is one YAML document; remove the `---` that starts a second one",
  "json/syntax": (a: { message: string }) => `JSON syntax error: ${a.message}`,

  // Shape of the declaration (also expressed by the JSON Schema of the format).
  "decl/unknown-key": (a: { key: string; where: string; suggestion?: string | undefined }) =>
    `unknown key ${q(a.key)} in ${a.where}` + (a.suggestion ? `; did you mean ${q(a.suggestion)}?` : ""),
  "decl/missing-key": (a: { key: string; where: string }) => `${a.where} needs the key ${q(a.key)}`,
  "decl/wrong-type": (a: { where: string; expected: string; actual: string; hint?: string | undefined }) =>
    `${a.where} must be ${a.expected}, not ${a.actual}` + (a.hint ? `; ${a.hint}` : ""),
  "decl/bad-value": (a: { where: string; allowed: readonly string[]; actual: string; other?: string | undefined; suggestion?: string | undefined }) =>
    `${a.where} must be ${a.other ? `${a.allowed.map(q).join(", ")} or ${a.other}` : orList(a.allowed)}, not ${a.actual}` +
    (a.suggestion ? `; did you mean ${q(a.suggestion)}?` : ""),
  "decl/bad-pattern": (a: { where: string; rule: string }) => `${a.where} ${a.rule}`,
  "decl/name-too-long": (a: { where: string; length: number; limit: number; start: string }) =>
    `${a.where} is ${a.length} characters long (${q(a.start + "…")}); a name may have at most ${a.limit} characters`,
  "decl/not-finite": (a: { where: string; value: string }) =>
    `${a.where} is ${a.value}, which JSON (and so the OpenAPI document) cannot hold; write a finite number`,
  "decl/license-identifier-or-url": (a: { given: "both" | "neither" }) =>
    `\`info.license\` ${a.given === "both" ? "gives both `identifier` and `url`" : "gives neither `identifier` nor `url`"}: write exactly one (an SPDX expression such as \`MIT\`, or the license's address); OpenAPI 3.1 holds them exclusive, and its published schema, as validators check it, asks for one`,
  "decl/too-few": (a: { where: string; min: number; noun: string }) => `${a.where} needs at least ${a.min} ${a.noun}`,
  "decl/reserved-extension": (a: { key: string }) => `${q(a.key)} is reserved: codegen writes the \`x-codegen-*\` extensions itself; give yours another name`,
  "decl/extension-as-name": (a: { key: string; where: string }) =>
    `${q(a.key)} in ${a.where} would be a name, but names starting with \`x-\` are kept for extensions; put \`x-\` keys in a map with fixed keys`,

  // Resources and names.
  "decl/not-plural": (a: { name: string; singular: string; plural: string }) =>
    `resource ${q(a.name)} is not a plural noun (it reads as the singular ${q(a.singular)}); use the plural, such as ${q(a.plural)}`,
  "decl/singular-equals-plural": (a: { name: string }) => `the singular of ${q(a.name)} is the same word; declare \`singular\` explicitly`,
  "decl/duplicate-type-name": (a: { typeName: string; name: string; other: string }) =>
    `resource ${q(a.name)} gives the type name ${q(a.typeName)}, which ${a.other} already uses; declare another \`singular\``,
  "decl/reserved-type-name": (a: { typeName: string; name: string }) =>
    `resource ${q(a.name)} gives the type name ${q(a.typeName)}, which codegen uses for its own schema; declare another \`singular\``,
  "decl/reserved-field": (a: { field: string }) => `${q(a.field)} is reserved: the server sets it, so it cannot be declared as a field`,
  "decl/unknown-ref": (a: { ref: string; known: readonly string[] }) =>
    `\`ref\` names ${q(a.ref)}, which is not a resource` + (a.known.length ? `; resources: ${a.known.map(q).join(", ")}` : ""),
  "decl/ref-type-mismatch": (a: { ref: string; idType: string; expected: string }) => `\`ref\` to ${q(a.ref)} (whose ids are ${a.idType}) needs ${a.expected}`,
  "decl/filter-not-scalar": (a: { type: string }) => `\`filter\` works on scalar fields only, not on an ${a.type}`,
  "decl/filter-write-only": () => "`filter` cannot apply to a `writeOnly` field: `?<field>=<value>` would let a client test the value that responses hide",
  "decl/default-invalid": (a: { problem: string }) => `\`default\` does not fit its own field: ${a.problem}`,
  "decl/bad-enum-value": (a: { problem: string }) => `this \`enum\` value does not fit its own field: ${a.problem}`,
  "decl/only-top-level": (a: { key: string }) => `${q(a.key)} applies to a resource's own fields, not to nested fields or array items`,
  "decl/items-required": () => "an `array` field needs `items`",
  "decl/fields-required": () => "an `object` field needs `fields`",
  "decl/key-not-for-type": (a: { key: string; type: string }) => `${q(a.key)} does not apply to a field of type ${q(a.type)}`,
  "decl/singular-same-as-name": (a: { name: string }) =>
    `\`singular\` must differ from the collection name ${q(a.name)}: choose the word for one item (\`${a.name}-item\`, say)`,
  "decl/when-without-status": (a: { key: string }) => `${q(a.key)} names states, but this resource declares no \`status\``,
  "decl/bad-regex": (a: { reason: string }) => `\`pattern\` is not a valid regular expression: ${a.reason}`,
  "decl/min-above-max": (a: { min: string; max: string }) => `${q(a.min)} is greater than ${q(a.max)}`,
  "decl/unknown-state": (a: { state: string; known: readonly string[] }) =>
    `${q(a.state)} is not a state of this resource; states: ${a.known.map(q).join(", ")}`,
  "decl/duplicate-state": (a: { state: string }) => `the state ${q(a.state)} is listed twice`,
  "decl/link-method-not-offered": (a: { method: string; rel: string }) =>
    `link ${q(a.rel)} uses ${a.method}, but no operation of this resource answers ${a.method}`,
  "decl/link-rel-reserved": (a: { rel: string }) => `link rel ${q(a.rel)} is computed by the server (self and \`ref\` links); choose another rel`,
  "decl/duplicate-operation": (a: { operation: string }) => `the operation ${q(a.operation)} is listed twice`,
  "decl/duplicate-operation-id": (a: { what: string; operationId: string; other: string }) =>
    `${a.what} gives the operationId ${q(a.operationId)}, which ${a.other} already has; choose another name`,

  // Operation options and actions.
  "decl/list-only": (a: { key: string; operation: string }) => `${q(a.key)} applies to the \`list\` operation only, not to ${q(a.operation)}`,
  "decl/bad-sort-field": (a: { field: string; reason: string }) =>
    `${q(a.field)} cannot be a sort field: ${a.reason}; sort by \`id\` or a scalar field the responses show`,
  "decl/duplicate-sort-field": (a: { field: string }) => `the sort field ${q(a.field)} is listed twice`,
  "decl/query-name-taken": (a: { name: string; by: string }) => `the query parameter ${q(a.name)} is taken: ${a.by}`,
  "decl/query-not-scalar": (a: { type: string }) => `a query parameter is a scalar (\`string\`, \`integer\`, \`number\` or \`boolean\`), not an ${a.type}`,
  "decl/key-not-for-place": (a: { key: string; place: string }) => `${q(a.key)} has no meaning for ${a.place}`,
  "decl/action-transition-undeclared": (a: { to: string; from: readonly string[] }) =>
    `\`to: ${a.to}\` is no declared transition from ${orList(a.from)}; add it under \`status.transitions\` or narrow \`when\``,
  "decl/action-field-incompatible": (a: { field: string; action: string; problem: string }) =>
    `the body field ${q(a.field)} of action ${q(a.action)} is named like a field of the resource, so it is stored there, but ${a.problem}; give it a compatible type or another name`,
  "decl/action-type-name-taken": (a: { typeName: string; action: string; name: string; other: string }) =>
    `action ${q(a.action)} of ${q(a.name)} gives the schema name ${q(a.typeName)}, which ${a.other} already uses; rename the action`,

  // Auth and access.
  "decl/undeclared-scope": (a: { scope: string }) => `scope ${q(a.scope)} is not declared by any guard in \`auth\``,
  "decl/scopes-split-across-guards": (a: { scopes: readonly string[] }) =>
    `no single guard declares all of ${a.scopes.map(q).join(", ")}: no token could ever carry them together`,
  "decl/duplicate-guard-name": (a: { name: string }) => `two guards are named ${q(a.name)}; give one a \`name\``,
  "decl/access-without-auth": () => "`access` needs guards: declare them under `auth`",
  "decl/access-operation-absent": (a: { operation: string }) => `\`access\` names ${q(a.operation)}, which this resource does not offer`,
  "decl/bad-server-url": (a: { url: string }) =>
    `server URL ${q(a.url)} must be an absolute http(s) URL or a path starting with \`/\`, without \`?\`, \`#\` or \`{variables}\`: the API's paths are appended to it`,
  "decl/bad-token-url": (a: { url: string }) => `token URL ${q(a.url)} must be absolute (\`https://...\`) or a path starting with \`/\``,
  "decl/bad-url": (a: { url: string }) => `${q(a.url)} must be an absolute http(s) URL or a path starting with \`/\``,
  "decl/url-not-uri": (a: { url: string }) =>
    `${q(a.url)} holds a character a URI may not (RFC 3986 section 2): percent-encode it (\`%C3%B6\` for \`ö\`, \`%20\` for a space)`,
  "decl/token-path-taken": (a: { path: string; by: string }) => `token path ${q(a.path)} is already ${a.by}`,
  "decl/second-token-endpoint": () => "only one password guard may serve a token endpoint here (a relative `tokenUrl`); point the others at absolute URLs",

  // Schemas of either input.
  "schema/unsafe-pattern": (a: { pattern: string; reason: string }) =>
    `the pattern ${q(a.pattern)} has ${a.reason}, which the generated validator's linear-time matcher does not take: V8's backtracking engine would run it, whose time one request can make grow exponentially; rewrite it without, or pass --allow-unsafe-patterns to accept that`,

  // OpenAPI documents as input.
  "openapi/invalid": (a: { message: string }) => `the OpenAPI document is not valid: ${a.message}`,
  "openapi/unsupported": (a: { pointer: string; reason: string }) => `cannot render ${a.pointer}: ${a.reason}`,
  "openapi/version": (a: { version: string }) => `\`openapi: ${a.version}\` is not a version codegen reads; it reads OpenAPI 3.0.x and 3.1.x`,
  "openapi/ref-refused": (a: { ref: string; reason: string }) => `the reference ${q(a.ref)} is not followed: ${a.reason}`,
  "openapi/ref-expansion": (a: { limit: number }) =>
    `the references here expand to more than ${a.limit} values when followed (each use counts what it points at); refer to schemas of components/schemas by name instead of to parts of the document`,

  "openapi/too-deep": (a: { limit: number }) =>
    `the document nests more than ${a.limit} levels deep here once its references are followed (a value referring to one that holds the next reference, or a file referring to the next file, in a chain); refer to schemas of components/schemas by name (\`$ref: '#/components/schemas/Name'\`), which has no limit, instead of to parts of the document or to other files`,
  "openapi/ref-chain": (a: { levels: number }) =>
    `this document is bundled (it refers to other files, to parts of schemas, or to references), and swagger-parser, which bundles it, follows each of its references in turn: a chain of them ran out of its stack. The chain passes here, ${a.levels} levels down (or ends here); shorten it, or refer only to schemas of components/schemas by name and to no other file (such a document is not bundled, and its chains have no limit)`,

  "openapi/rendered-otherwise": (a: { reason: string; instead: string }) =>
    `this cannot be rendered as written (${a.reason}); the rest of the document is. Instead, the server ${a.instead} (docs/openapi.md, "What is handed raw, and what is left out")`,
  "openapi/error-shape-unmapped": (a: { uses: readonly string[] }) =>
    `the server cannot build its own refusals (validation, 404, 405, 406, 413, 415, 501) in this error schema: no property takes their message, or a required one needs a value it has none for. It answers them instead: ${a.uses.join("; ")}. To answer them in this shape, give createServer a \`formatError\` option that builds it (docs/openapi.md, "How a server from a document answers errors")`,

  // Schema mistakes of OpenAPI documents read leniently (warnings; errors with --strict).
  "openapi/ref-siblings-ignored": (a: { keys: readonly string[] }) =>
    `${a.keys.map(q).join(", ")} beside \`$ref\` ${a.keys.length === 1 ? "is" : "are"} ignored: in OpenAPI 3.0 a \`$ref\` replaces its whole object; to add to the schema it names, use \`allOf: [{$ref: ...}]\``,
  "openapi/nullable-without-type": () => "`nullable` without `type` has no effect (it adds null to the types `type` names) and is ignored",
  "openapi/nullable-not-3.1": () =>
    '`nullable` is not a keyword of OpenAPI 3.1; it is read as 3.0 reads it (null added to `type`); write `type: [..., "null"]` instead',
  "openapi/pattern-without-u": (a: { pattern: string; meant: string }) =>
    `the pattern ${q(a.pattern)} is valid only without the regular expressions' \`u\` flag (which JSON Schema implies); it is read as ${q(a.meant)}, which matches the same texts`,

  // The output folder.
  "output/edited-by-hand": (a: { path: string }) =>
    `${q(a.path)} was edited by hand since codegen wrote it; keep your change in a file of your own (generated files are rewritten), or run again with --force to overwrite it`,
  "output/not-ours": (a: { path: string }) =>
    `${q(a.path)} exists and was not written by codegen, which never overwrites such a file; move it away or choose another output folder`,
  "output/symbolic-link": (a: { path: string }) =>
    `${q(a.path)} is a symbolic link, and codegen never reads, writes or deletes through a link inside its output folder; replace it with a folder or file of its own, or choose another output folder`,
  "output/unsafe-folder": (a: { dir: string }) =>
    `${q(a.dir)} cannot be the output folder: it holds the working folder or the input, and codegen replaces its output folder as a whole; choose a folder of its own, such as \`generated\``,
  "output/no-prettier": (a: { dir: string }) =>
    `--prettier formats with your project's own prettier, and none is installed where ${q(a.dir)} is (\`npm install --save-dev prettier\` in its project), or run without --prettier`,
  "output/special-target": (a: { path: string; what: string }) =>
    `${q(a.path)} is ${a.what}; codegen replaces only a regular file whole, and writes through only a device (such as /dev/null) or a named pipe: name a file instead`,
  "output/cannot-write": (a: { path: string; reason: string }) => `cannot write ${q(a.path)}: ${a.reason}`,
  "output/not-a-folder": (a: { dir: string; what: string }) =>
    `${q(a.dir)} is ${a.what}, not a folder; codegen writes its output into a folder of its own and never replaces what stands there: choose a folder, such as \`generated\``,
  "output/unrecorded-migration": (a: { path: string; reason: string }) =>
    `${q(a.path)} ${a.reason}; codegen migrate and the generated migrate() apply only the migrations codegen wrote and recorded in the folder's manifest: move it out of the migrations folder`,
  "output/link-outside-project": (a: { path: string; to: string }) =>
    `${q(a.path)} is a symbolic link to ${q(a.to)}, outside the project, and codegen init writes nothing through it; make it a folder of the project, or init another folder`,
  "output/out-of-date": (a: { dir: string; count: number }) =>
    `${q(a.dir)} is not up to date: ${a.count} file${a.count === 1 ? "" : "s"} would change; run codegen without --check to update it`,

  // Migrations: written on request, safe to evolve (docs/migrations.md).
  "migrate/not-captured": (a: { change: string; dir: string }) =>
    `the declaration ${a.change}, which no migration in ${q(a.dir)} captures: run \`codegen migrate new\` to write it (docs/migrations.md)`,
  "migrate/required-added": (a: { field: string; resource: string }) =>
    `${q(a.field)} is new and required, but the rows ${q(a.resource)} already holds have no value for it: give it a \`default\` (every stored row gets it), or declare it optional`,
  "migrate/became-required": (a: { field: string; resource: string }) =>
    `${q(a.field)} becomes required, but rows of ${q(a.resource)} stored without it would then be unreadable: give it a \`default\` (stored rows without it get it), or keep it optional`,
  "migrate/lossy-type": (a: { field: string; from: string; to: string }) =>
    `${q(a.field)} changes from ${a.from} to ${a.to}, which would lose stored values that do not convert: declare a new field of the new type, copy the values your code can convert through the API, then remove ${q(a.field)}`,
  "migrate/id-type": (a: { resource: string; from: string; to: string }) =>
    `the ids of ${q(a.resource)} change from ${a.from} to ${a.to}, which stored ids and every \`ref\` to them would not survive: keep \`id: ${a.from}\`, or declare a new resource and move the objects over`,
  "decl/renamed-from-declared": (a: { name: string }) =>
    `\`renamedFrom\` names ${q(a.name)}, a field this resource still declares: a field is renamed from a name it no longer has`,

  // The database of `--db` (serve, migrate).
  "db/unavailable": (a: { db: string; reason: string }) => `cannot open the database ${q(a.db)}: ${a.reason}`,
  "db/failed": (a: { db: string; what: string; reason: string }) => `${a.what}, on the database ${q(a.db)}: ${a.reason}`,

  // Our own bugs, found by verifying the expanded document.
  "internal/invalid-openapi": (a: { message: string }) =>
    `codegen produced an invalid OpenAPI document; this is a bug in codegen, please report it with your declaration: ${a.message}`,
  "internal/invalid-schema": (a: { name: string; message: string }) =>
    `codegen produced an invalid JSON Schema at ${a.name}; this is a bug in codegen, please report it with your declaration: ${a.message}`,
} as const;

/** Every diagnostic code. */
export type DiagnosticCode = keyof typeof catalogue;

/** The arguments a code's message takes. */
export type DiagnosticArgs<C extends DiagnosticCode> =
  Parameters<(typeof catalogue)[C]> extends [] ? Record<string, never> : Parameters<(typeof catalogue)[C]>[0];

/** The message of a code with its arguments. */
export function messageFor<C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>): string {
  const render = catalogue[code] as (a: DiagnosticArgs<C>) => string;
  return render(args);
}
