/**
 * The view of operations written by others (no `x-codegen-operation`): one handler interface per
 * tag (or first path segment), a method per operation with typed input and a typed union of the
 * declared responses, and the data the runtime's operation runner reads
 * (templates/runtime/operations.gen.ts). Anything it cannot render safely is an
 * UnsupportedConstruct at its JSON pointer, never silently dropped.
 */
import { docLines, inlineComment, literalAt, propertyKey, stringLiteral } from "./escape.js";
import { SchemaTypeNames, UnsupportedConstruct, checkedIdentifier, identifierOf, isMemberName, lowerFirst, pointerOf } from "./names.js";
import { type JsonSchema, refName, schemaNode, schemaTypes, typeScriptType, unsupportedKeywords } from "./schema-code.js";
import { type OperationSecurity, securityOf } from "./security.js";
import type { OperationGroupView, OperationView } from "./view.js";

export { UnsupportedConstruct, pointerOf };

type Json = { readonly [key: string]: unknown };
const asJson = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** Whether a media type (lower case, no parameters) is JSON: `application/json` or `+json` (RFC 6839). */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
}

/** Media type keys of a `content` map, lower-cased, each range of a comma-separated key on its own. */
function mediaTypes(content: Json): { type: string; schema: Json | undefined }[] {
  return Object.entries(content).flatMap(([key, media]) =>
    key
      .split(",")
      .map((part) => ({ type: part.split(";")[0]!.trim().toLowerCase(), schema: "schema" in asJson(media) ? asJson(asJson(media).schema) : undefined })),
  );
}

/** What the model collects of every operation written by others, grouped for the templates. */
export class OperationCollector {
  readonly problems: UnsupportedConstruct[] = [];
  private readonly groups = new Map<string, { view: Omit<OperationGroupView, "operations">; operations: OperationView[] }>();
  private readonly definitions: [string, unknown][] = [];
  /** operationId -> what `codegen serve` answers for it (see mockAnswer). */
  readonly mockAnswers: Record<string, MockAnswer> = {};
  private readonly usedIds = new Set<string>();
  private readonly usedProperties: Set<string>;
  readonly hookSchemes = new Set<string>();

  constructor(
    private readonly document: Json,
    takenProperties: Iterable<string>,
    private readonly typeNames: SchemaTypeNames,
  ) {
    this.usedProperties = new Set(takenProperties);
  }

  /** The TypeScript type of a schema, its named schemas as `T.<name>` through the gate. */
  private typeOf(schema: Json | undefined): string {
    return schema === undefined ? "unknown" : typeScriptType(schema as JsonSchema, "T.", this.typeNames);
  }

  /**
   * Adds one operation; answers its entry of the route's methods, or undefined (its problems
   * recorded) when it cannot be rendered.
   */
  add(path: string, method: string, item: Json, operation: Json): object | undefined {
    try {
      return this.addOperation(path, method, item, operation);
    } catch (error) {
      // A name the gate refused (names.ts): recorded with the others, so that all are listed.
      if (!(error instanceof UnsupportedConstruct)) throw error;
      this.problems.push(error);
      return undefined;
    }
  }

  private addOperation(path: string, method: string, item: Json, operation: Json): object | undefined {
    const at = pointerOf("paths", path, method);
    const before = this.problems.length;
    const operationId = this.operationId(operation, method, path);
    const parameters = this.parameters(path, method, item, operation);
    const body = this.requestBody(asJson(operation.requestBody), `${at}/requestBody`);
    const responses = this.responses(asJson(operation.responses), `${at}/responses`);
    const security = this.security(operation, at);
    if (this.problems.length > before) return undefined;

    const members = [...parameters.members, ...body.members, `principal: ${security.principal}`, "scopes: SecurityScopes"];
    const pascal = operationId[0]!.toUpperCase() + operationId.slice(1);
    const summary = [operation.summary, operation.description].filter((text): text is string => typeof text === "string" && text.trim() !== "").join("\n\n");
    const view: OperationView = {
      operationId: checkedIdentifier(operationId, at, "operationId"),
      docLines: [...docLines(summary), ...(summary === "" ? [] : [""]), `\`${method.toUpperCase()} ${inlineComment(path)}\``],
      inputName: checkedIdentifier(`${pascal}Input`, at, "the input type"),
      inputType: `{ ${members.join("; ")} }`,
      resultName: checkedIdentifier(`${pascal}Result`, at, "the result type"),
      resultType: responses.type,
    };
    const definition = {
      parameters: parameters.specs,
      ...(body.spec ? { body: body.spec } : {}),
      responses: responses.media,
      jsonOnly: responses.jsonOnly,
    };
    this.definitions.push([operationId, definition]);
    this.mockAnswers[operationId] = mockAnswer(asJson(operation.responses));
    this.groupOf(operation, path).operations.push(view);
    return { operationId, kind: "operation", security: security.requirements, query: {} };
  }

  /** The groups in order of first appearance. */
  groupViews(): OperationGroupView[] {
    return [...this.groups.values()].map(({ view, operations }) => {
      const text = operations.map((o) => o.inputType + o.resultType).join(" ");
      return { ...view, operations, usesTypes: /\bT\./.test(text), usesPrincipal: /\bPrincipal\b/.test(text), usesRawBody: /\bRawBody\b/.test(text) };
    });
  }

  /** `operationId -> definition` as the literal of api.gen.ts. */
  definitionEntries(): { key: string; literal: string }[] {
    return this.definitions.map(([id, definition]) => ({ key: propertyKey(id), literal: literalAt(id, definition) }));
  }

  private groupOf(operation: Json, path: string): { view: Omit<OperationGroupView, "operations">; operations: OperationView[] } {
    const tag = asArray(operation.tags).find((t): t is string => typeof t === "string");
    const segment = path.split("/").find((s) => s !== "" && !s.startsWith("{"));
    const label = tag ?? segment ?? "default";
    const existing = this.groups.get(label);
    if (existing) return existing;
    const pascal = identifierOf(label);
    let property = pascal[0] === "_" ? pascal : pascal[0]!.toLowerCase() + pascal.slice(1);
    if (!isMemberName(property)) property = `${property}Operations`;
    const base = property;
    for (let n = 2; this.usedProperties.has(property); n++) property = `${base}${n}`;
    this.usedProperties.add(property);
    const typeBase = property[0]!.toUpperCase() + property.slice(1);
    const at = pointerOf("paths", path);
    const group = {
      view: {
        property: checkedIdentifier(property, at, "the handler group"),
        interfaceName: checkedIdentifier(`${typeBase}Handlers`, at, "the handler interface"),
        binderName: checkedIdentifier(`bind${typeBase}`, at, "the binder"),
        fileName:
          property
            .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
            .replace(/^[-_]+/, "")
            .replace(/_/g, "-") || "default",
        labelComment: inlineComment(label),
        usesTypes: false,
        usesPrincipal: false,
        usesRawBody: false,
      },
      operations: [],
    };
    this.groups.set(label, group);
    return group;
  }

  /** The operationId as an identifier (its words), or one derived from method and path; unique, whatever the case. */
  private operationId(operation: Json, method: string, path: string): string {
    const given = typeof operation.operationId === "string" ? operation.operationId : undefined;
    let base: string;
    if (given !== undefined && isMemberName(given)) base = given;
    else if (given !== undefined) base = lowerFirst(identifierOf(given));
    else {
      const words = path
        .split("/")
        .filter((s) => s !== "")
        .map((s) => (s.startsWith("{") ? `By ${s}` : s));
      base = lowerFirst(identifierOf([method, ...words].join(" ")));
    }
    if (!isMemberName(base)) base = `${base}Operation`;
    let id = base;
    for (let n = 2; this.usedIds.has(id.toLowerCase()); n++) id = `${base}${n}`;
    this.usedIds.add(id.toLowerCase());
    return id;
  }

  private parameters(path: string, method: string, item: Json, operation: Json): { specs: object[]; members: string[] } {
    // Operation parameters override the path item's of the same name and location.
    const all = new Map<string, { parameter: Json; pointer: string }>();
    asArray(item.parameters).forEach((p, i) =>
      all.set(`${asJson(p).in}:${asJson(p).name}`, { parameter: asJson(p), pointer: `${pointerOf("paths", path)}/parameters/${i}` }),
    );
    asArray(operation.parameters).forEach((p, i) =>
      all.set(`${asJson(p).in}:${asJson(p).name}`, { parameter: asJson(p), pointer: `${pointerOf("paths", path, method)}/parameters/${i}` }),
    );
    const templated = path.split("/").filter((s) => /[{}]/.test(s));
    for (const segment of templated) {
      if (!/^\{[^{}]+\}$/.test(segment)) {
        this.fail(
          pointerOf("paths", path),
          `the path segment ${stringLiteral(segment)} mixes a parameter with text; codegen matches whole segments only: make \`{name}\` a segment of its own`,
        );
      }
    }
    const order = templated.map((s) => s.slice(1, -1));
    const specs: { spec: object; location: string; order: number }[] = [];
    const members: Record<string, string[]> = { path: [], query: [], header: [], cookie: [] };
    for (const { parameter, pointer } of all.values()) {
      const name = String(parameter.name);
      const location = String(parameter.in);
      // OpenAPI 3.1 section 4.8.12.1: header parameters named Accept, Content-Type or Authorization are ignored.
      if (location === "header" && ["accept", "content-type", "authorization"].includes(name.toLowerCase())) continue;
      const spec = this.parameter(parameter, pointer);
      if (spec === undefined) continue;
      const schema = asJson(parameter.schema);
      const optional = location !== "path" && parameter.required !== true && this.resolve(schema).default === undefined;
      members[location]!.push(`${propertyKey(name)}${optional ? "?" : ""}: ${this.typeOf(schema)}`);
      specs.push({ spec, location, order: location === "path" ? order.indexOf(name) : order.length });
    }
    const parts = [
      ["path", "path"],
      ["query", "query"],
      ["header", "headers"],
      ["cookie", "cookies"],
    ] as const;
    return {
      specs: specs.sort((a, b) => a.order - b.order).map((s) => s.spec),
      members: parts.filter(([location]) => members[location]!.length > 0).map(([location, key]) => `${key}: { ${members[location]!.join("; ")} }`),
    };
  }

  private parameter(parameter: Json, pointer: string): object | undefined {
    const name = String(parameter.name);
    const location = String(parameter.in);
    if (parameter.content !== undefined || parameter.schema === undefined) {
      return this.fail(pointer, "a parameter described by `content` is not supported; describe it with `schema` (and `style`)");
    }
    const schema = asJson(parameter.schema);
    this.checkSchema(schema, `${pointer}/schema`);
    const resolved = this.resolve(schema);
    const types = schemaTypes(resolved as JsonSchema);
    const style = typeof parameter.style === "string" ? parameter.style : location === "query" || location === "cookie" ? "form" : "simple";
    const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
    const isArray = types.includes("array");
    const spec = { name, in: location, required: location === "path" || parameter.required === true, schema: schemaNode(schema as JsonSchema) };
    if (types.includes("object") || (types.length === 0 && resolved.properties !== undefined)) {
      return this.fail(
        pointer,
        `the object-valued ${location} parameter ${stringLiteral(name)} is not supported; send its fields as parameters of their own, or in a JSON body`,
      );
    }
    const items = this.resolve(asJson(resolved.items));
    if (isArray && schemaTypes(items as JsonSchema).some((t) => t === "array" || t === "object")) {
      return this.fail(
        pointer,
        `the ${location} parameter ${stringLiteral(name)} is an array of arrays or objects, which no parameter style can carry unambiguously; use a JSON body`,
      );
    }
    const supported: Record<string, string[]> = { path: ["simple"], query: ["form", "spaceDelimited", "pipeDelimited"], header: ["simple"], cookie: ["form"] };
    if (!(supported[location] ?? []).includes(style)) {
      return this.fail(
        pointer,
        `the style ${stringLiteral(style)} of the ${location} parameter ${stringLiteral(name)} is not supported; codegen reads ${(supported[location] ?? []).join(", ")} ${location} parameters`,
      );
    }
    if (!isArray) return spec;
    if (location === "cookie") return this.fail(pointer, `the array-valued cookie parameter ${stringLiteral(name)} is not supported; use a query parameter`);
    const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    return { ...spec, array: location === "query" && style === "form" && explode ? "repeat" : separator };
  }

  private requestBody(body: Json, pointer: string): { spec?: object; members: string[] } {
    if (Object.keys(body).length === 0) return { members: [] };
    const types = mediaTypes(asJson(body.content));
    if (types.length === 0) return { members: [] };
    const required = body.required === true;
    const json = types.filter((t) => isJsonMediaType(t.type));
    const raw = types.filter((t) => !isJsonMediaType(t.type));
    const schema = json.find((t) => t.schema !== undefined)?.schema;
    if (schema) this.checkSchema(schema, `${pointer}/content/${json[0]!.type.replace(/\//g, "~1")}/schema`);
    const members: string[] = [];
    if (json.length > 0) members.push(`body${required && raw.length === 0 ? "" : "?"}: ${this.typeOf(schema)}`);
    if (raw.length > 0) members.push(`rawBody${required && json.length === 0 ? "" : "?"}: RawBody`);
    return {
      spec: { required, json: json.map((t) => t.type), ...(schema ? { schema: schemaNode(schema as JsonSchema) } : {}), raw: raw.map((t) => t.type) },
      members,
    };
  }

  private responses(responses: Json, pointer: string): { media: Record<string, string[]>; type: string; jsonOnly: boolean } {
    const statuses = Object.keys(responses);
    const media: Record<string, string[]> = {};
    let anyJson = false;
    let anyRaw = false;
    const members: string[] = [];
    for (const status of statuses) {
      if (!/^(?:[1-5](?:[0-9]{2}|XX)|default)$/i.test(status)) {
        this.fail(`${pointer}/${status}`, `${stringLiteral(status)} is not a status code, a range like 4XX, or default`);
        continue;
      }
      const literalStatus = /^[0-9]{3}$/.test(status) ? status : "number";
      const types = mediaTypes(asJson(asJson(responses[status]).content));
      media[status] = [...new Set(types.map((t) => t.type))];
      const headers = "headers?: ResponseHeaders";
      if (types.length === 0) members.push(`{ status: ${literalStatus}; ${headers} }`);
      const json = types.filter((t) => isJsonMediaType(t.type));
      const raw = types.filter((t) => !isJsonMediaType(t.type));
      if (json.length > 0) {
        anyJson = true;
        const contentTypes = [...new Set(json.map((t) => stringLiteral(t.type)))].join(" | ");
        members.push(
          `{ status: ${literalStatus}; body: ${this.typeOf(json.find((t) => t.schema !== undefined)?.schema)}; contentType?: ${contentTypes}; ${headers} }`,
        );
      }
      if (raw.length > 0) {
        anyRaw = true;
        const exact = raw.every((t) => !t.type.includes("*"));
        const contentTypes = exact ? [...new Set(raw.map((t) => stringLiteral(t.type)))].join(" | ") : "string";
        members.push(`{ status: ${literalStatus}; contentType: ${contentTypes}; body: string | Uint8Array; ${headers} }`);
      }
    }
    // Why: OpenAPI 3.1 lets an operation declare no responses; its handler may then answer any
    // status, with a JSON body, bytes of a type it names, or nothing (README, "OpenAPI as input").
    if (statuses.length === 0) {
      return { media: { default: ["*/*"] }, type: "{ status: number; body?: unknown; contentType?: string; headers?: ResponseHeaders }", jsonOnly: false };
    }
    return { media, type: members.join(" | ") || "never", jsonOnly: anyJson && !anyRaw };
  }

  /**
   * The operation's security requirements (src/model/security.ts, the same reading as codegen's
   * own operations); their problems recorded, the schemes checked by hooks noted.
   */
  security(operation: Json, pointer: string): OperationSecurity {
    const security = securityOf(operation, this.document, pointer);
    for (const problem of security.problems) this.fail(problem.pointer, problem.reason);
    for (const name of security.hooks) this.hookSchemes.add(name);
    return security;
  }

  /** A schema with its `$ref` followed (to a named schema of the document). */
  private resolve(schema: Json): Json {
    const name = refName(schema as JsonSchema);
    if (name === undefined) return schema;
    const schemas = asJson(asJson(this.document.components).schemas);
    return asJson(Object.hasOwn(schemas, name) ? schemas[name] : undefined);
  }

  private checkSchema(schema: Json, pointer: string): void {
    for (const problem of unsupportedKeywords(schema as JsonSchema, pointer)) {
      this.fail(
        problem.pointer,
        `the keyword \`${problem.keyword}\` is not one codegen's request validator checks; express the constraint with the supported keywords, or check it in the handler`,
      );
    }
  }

  private fail(pointer: string, reason: string): undefined {
    this.problems.push(new UnsupportedConstruct(pointer, reason));
    return undefined;
  }
}

/** A response `codegen serve` gives for an operation written by others. */
export interface MockAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string;
}

/**
 * The first declared success (a 2XX code, else a 2XX range or default as 200, else the first
 * code), with the document's example for it when there is one: media `example`, the first of
 * `examples`, or the schema's `example`.
 */
function mockAnswer(responses: Json): MockAnswer {
  const keys = Object.keys(responses);
  const key = keys.find((k) => /^2[0-9]{2}$/.test(k)) ?? keys.find((k) => /^2XX$/i.test(k) || k === "default") ?? keys.find((k) => /^[0-9]{3}$/.test(k));
  const status = key !== undefined && /^[0-9]{3}$/.test(key) ? Number(key) : 200;
  if (key === undefined || status === 204 || status === 304) return { status };
  for (const [type, raw] of Object.entries(asJson(asJson(responses[key]).content))) {
    const media = asJson(raw);
    const first = Object.values(asJson(media.examples))
      .map(asJson)
      .find((e) => e.value !== undefined);
    const example = media.example ?? first?.value ?? asJson(media.schema).example;
    const contentType = type.split(",")[0]!.trim();
    if (example === undefined || contentType.includes("*")) continue;
    if (isJsonMediaType(contentType.split(";")[0]!.toLowerCase())) return { status, body: example, contentType };
    if (typeof example === "string") return { status, body: example, contentType };
  }
  return { status };
}
