/**
 * The view of operations written by others (no `x-codegen-operation`): one handler interface per
 * tag (or first path segment), a method per operation with typed input and a typed union of the
 * declared responses; and for every operation of any kind the definition the dispatcher reads it by
 * (runtime/requests.gen.ts). Anything it cannot render safely is an
 * UnsupportedConstruct at its JSON pointer, never silently dropped; in a document written by
 * others (`fromOthers`) it is a HandledConstruct instead, rendered another way and warned of
 * (docs/openapi.md, "What is handed raw, and what is left out").
 */
import type { OperationSpec } from "#runtime/dispatch.gen.js";
import type { BodySpec, OperationDefinition, ParameterSpec, PathStyle } from "#runtime/requests.gen.js";
import type { SchemaNode } from "#runtime/validate.gen.js";
import { type Json, objectOf } from "../../model/json.js";
import { type ParameterObject, type RequestBodyObject, type ResponseObject, isJsonMediaType } from "./document.js";
import { type UnmappedResponse, refusalShapes } from "./error-shapes.js";
import { statusMap } from "../expand/schemas.js";
import { escapeToken } from "../pointer.js";
import { docLines, inlineComment, stringLiteral } from "../../model/escape.js";
import {
  type Findings,
  HandledConstruct,
  type NameGate,
  SchemaTypeNames,
  type SchemaUse,
  UnsupportedConstruct,
  fileNameOf,
  identifierOf,
  isMemberName,
  lowerFirst,
  pointerOf,
} from "./names.js";
import type { OperationModel } from "./operation.js";
import { type JsonSchema, type PatternCheck, refName, schemaNode, schemaTypes, typeExpression, unsupportedKeywords } from "./schema-code.js";
import { routeNode } from "./deep-nodes.js";
import { type Member, type TypeExpr, docComment, documentedUnion, literalType, member, objectType, unionType, word } from "../../model/type-expr.js";
import type { ApiModel, OperationGroupView, OperationView } from "../../model/api-model.js";

/** The request's signal, the last member of every handler's input (runtime/dispatch.gen.ts, RequestWork). */
const SIGNAL = member("signal", word("AbortSignal"), {
  description: "Aborted when the request's deadline passes or its client goes away: hand it to store calls and other slow work.",
});
/** The members every handler's input ends with, by security.ts's kind of principal (its text as the type): the principal, its scopes, the signal. */
const CONTEXT = new Map(
  ["Principal", "Principal | undefined", "undefined"].map((text) => [
    text,
    [member("principal", unionType(text.split(" | ").map(word))), member("scopes", word("SecurityScopes")), SIGNAL] as const,
  ]),
);
/** The last members of the input of a handler whose operation gives this principal, for resource handlers and others alike. */
export const contextMembers = (principal: OperationModel["security"]["principal"]): readonly Member[] => CONTEXT.get(principal)!;

/** A handler group as it is collected: its names, and its operations (groupViews adds what its file uses). */
type Group = { readonly view: Omit<OperationGroupView, "operations" | `uses${string}`>; readonly operations: OperationView[] };

/** What the model collects of every operation written by others, grouped for the templates. */
export class OperationCollector {
  /** The operations left out for a security requirement codegen cannot check, by the requirement's place. */
  private readonly leftOut = new Map<string, { reason: string; operations: string[] }>();
  /** Why each raw parameter's spec is raw (for its doc comment). */
  private readonly rawReasons = new WeakMap<ParameterSpec, string>();
  /** Declared error schemas the server cannot build its refusals in, by their place: their first uses (by operation and status, each with how the server answers instead) and how many more. */
  readonly unmappedErrors = new Map<string, { readonly pointer: string; readonly responses: string[]; more: number }>();
  private readonly groups = new Map<string, Group>();
  /** operationId -> what `codegen serve` answers for it (see mockAnswer). */
  readonly mockAnswers: { [operationId: string]: ApiModel["mockAnswers"][string] } = {};
  private readonly usedProperties: Set<string>;
  readonly hookSchemes = new Set<string>();
  /** The spec of each parameter read without problems (a path item's is read at each of its operations). */
  private readonly specs = new WeakMap<ParameterObject, ParameterSpec>();
  /** The validator node of each schema read. */
  private readonly nodes = new WeakMap<object, SchemaNode>();
  /** Nodes too deep to stand in a route, for the schema table (deep-nodes.ts), by key. */
  readonly tableNodes: [string, SchemaNode][] = [];
  /** The schemas checked that hold no keyword the validator cannot check (checked once). */
  private readonly checked = new WeakSet<object>();
  /** The schemas whose types (and so their variants) were already asked for per use: each object, a reference to a named one by its text. */
  private readonly asked = { request: new Set<unknown>(), response: new Set<unknown>() };

  constructor(
    private readonly document: Json,
    takenProperties: Iterable<string>,
    private readonly typeNames: SchemaTypeNames,
    private readonly gate: NameGate,
    /** What cannot be rendered as written: handled in a document written by others, else refused. */
    private readonly findings: Findings,
    /** Which patterns the validator checks (schemaNode). */
    private readonly checks: PatternCheck = undefined,
  ) {
    this.usedProperties = new Set(takenProperties);
  }

  /** Each security requirement's place that left operations out, with the operations it left out (once all are added). */
  leftOutConstructs(): HandledConstruct[] {
    return [...this.leftOut].map(([pointer, { reason, operations }]) => {
      const named = operations.length > 3 ? `${operations.slice(0, 3).join(", ")} and ${operations.length - 3} more` : operations.join(", ");
      const instead = `leaves out the operations that need it (${named}): requests to them are answered 404 or 405, never let in unchecked`;
      return new HandledConstruct(pointer, reason, instead);
    });
  }

  /** The TypeScript type of a schema, its named schemas as `T.<name>` through the gate, as `use`d. */
  private typeOf(schema: Json | undefined, use?: SchemaUse): TypeExpr {
    return schema === undefined ? word("unknown") : typeExpression(schema as JsonSchema, "T.", this.typeNames, use);
  }

  /**
   * Asks for the type of a schema as `use`d, for the variants it names, once per schema. Why a
   * `$ref` by its text: it is a new object at each operation (each of a thousand resources' error
   * responses), remembering each object was garbage, and asking for the same type again asks for
   * nothing new.
   */
  private askFor(schema: Json | undefined, use: SchemaUse): void {
    if (schema === undefined) return;
    const asked = this.asked[use];
    // A reference to a named schema is its type whatever else the schema says (typeExpression).
    const ref = schema.$ref;
    const key = typeof ref === "string" && ref.startsWith("#/components/schemas/") ? ref : schema;
    if (asked.has(key)) return;
    asked.add(key);
    this.typeOf(schema, use);
  }

  /**
   * Adds one operation of the model; answers its entry of the route's methods, or undefined (its
   * problems recorded) when it cannot be rendered.
   */
  add(model: OperationModel): OperationSpec | undefined {
    const { operationId, method, path, pointer: at } = model;
    // Why left out, never routed: its requirement would be checked without the scheme codegen
    // cannot check, letting requests in that the document refuses (docs/openapi.md).
    if (this.findings.fromOthers && model.security.problems.length > 0) {
      for (const { pointer, reason } of model.security.problems) {
        const entry = this.leftOut.get(pointer) ?? { reason, operations: [] };
        entry.operations.push(`${method.toUpperCase()} ${path}`);
        this.leftOut.set(pointer, entry);
      }
      return undefined;
    }
    const before = this.findings.problems.length;
    const read = this.read(model, true);
    const security = this.security(model);
    if (this.findings.problems.length > before) return undefined;

    const members = [...read.parameterMembers, ...read.bodyMembers, ...contextMembers(security.principal)];
    const pascal = operationId[0]!.toUpperCase() + operationId.slice(1);
    const summary = [model.summary, model.description].filter((text): text is string => text !== undefined).join("\n\n");
    const view: OperationView = {
      operationId: this.gate.identifier(operationId, at, "operationId"),
      docLines: [...docLines(summary), ...(summary === "" ? [] : [""]), `\`${method.toUpperCase()} ${inlineComment(path)}\``],
      inputName: this.gate.typeName(`${pascal}Input`, at, "the input type"),
      inputType: objectType(members),
      resultName: this.gate.typeName(`${pascal}Result`, at, "the result type"),
      resultType: read.resultType,
    };
    this.mockAnswers[operationId] = mockAnswer(model.responses, model.pointer);
    this.groupOf(model.group, path).operations.push(view);
    // How the server's own refusals of its requests are answered (src/model/error-shapes.ts).
    const refusals = refusalShapes(model.responses, this.document, (response) => this.unmappedError(model, response));
    return { operationId, kind: "operation", security: security.requirements, ...read.definition, refusals };
  }

  /**
   * Records a declared error response the server cannot build its refusals in, once per schema
   * place: a named schema where it is defined (one warning for all its uses), else the response's
   * own schema.
   */
  private unmappedError(model: OperationModel, response: UnmappedResponse): void {
    const ref = typeof response.schema.$ref === "string" && response.schema.$ref.startsWith("#/components/schemas/") ? response.schema.$ref : undefined;
    const pointer = ref ?? pointerOf("paths", model.path, model.method, "responses", response.status, "content", response.mediaKey, "schema");
    const use = `for the \`${response.status}\` response of ${model.operationId}, ${response.instead}`;
    const known = this.unmappedErrors.get(pointer);
    if (known === undefined) this.unmappedErrors.set(pointer, { pointer, responses: [use], more: 0 });
    else if (known.responses.length < 3) known.responses.push(use);
    else known.more++;
  }

  /**
   * How the dispatcher reads an operation of any kind (runtime/requests.gen.ts,
   * OperationDefinition): its parameters (`own`) by location and style, its body by media type,
   * its responses by status; with the type members of its parameters and body and the union of
   * its responses, made only when `typed` (else empty). Problems are recorded. Untyped, for
   * codegen's own operations (whose handler types the resource gives: build.ts), the variants
   * their body and responses ask for are asked for in the same order (types.gen.ts declares them
   * so). Why no type texts then: made for every operation and dropped, they were a good part of
   * the model's time and garbage. `own`: the parameters of the model it reads (a list's own
   * `sort`, `limit` and `cursor` are not).
   */
  read(
    model: OperationModel,
    typed: boolean,
    own: OperationModel["parameters"] = model.parameters,
  ): { definition: OperationDefinition; parameterMembers: Member[]; bodyMembers: Member[]; resultType: TypeExpr } {
    const parameters = this.parameters(model, own, typed);
    const body = this.requestBody(model.body, `${model.pointer}/requestBody`, typed);
    const responses = this.responses(model.responses, `${model.pointer}/responses`, typed);
    return {
      definition: { parameters: parameters.specs, ...(body.spec ? { body: body.spec } : {}), responses: responses.media, jsonOnly: responses.jsonOnly },
      parameterMembers: parameters.members,
      bodyMembers: body.members,
      resultType: responses.type,
    };
  }

  /** The groups in order of first appearance. */
  groupViews(): OperationGroupView[] {
    return [...this.groups.values()].map(({ view, operations }) => {
      const text = operations.map((o) => `${o.inputType.text} ${o.resultType.text}`).join(" ");
      return {
        ...view,
        operations,
        usesTypes: /\bT\./.test(text),
        usesPrincipal: /\bPrincipal\b/.test(text),
        usesRawBody: /\bRawBody\b/.test(text),
        usesRawParameter: /\bRawParameter\b/.test(text),
      };
    });
  }

  private groupOf(label: string, path: string): Group {
    const existing = this.groups.get(label);
    if (existing) return existing;
    let property = lowerFirst(identifierOf(label));
    if (!isMemberName(property)) property = `${property}Operations`;
    const base = property;
    for (let n = 2; this.usedProperties.has(property); n++) property = `${base}${n}`;
    this.usedProperties.add(property);
    const typeBase = property[0]!.toUpperCase() + property.slice(1);
    const at = pointerOf("paths", path);
    const group = {
      view: {
        property: this.gate.identifier(property, at, "the handler group"),
        interfaceName: this.gate.identifier(`${typeBase}Handlers`, at, "the handler interface"),
        binderName: this.gate.identifier(`bind${typeBase}`, at, "the binder"),
        fileName: fileNameOf(
          property
            .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
            .replace(/^[-_]+/, "")
            .replace(/_/g, "-") || "default",
        ),
        labelComment: inlineComment(label),
      },
      operations: [],
    };
    this.groups.set(label, group);
    return group;
  }

  private parameters(model: OperationModel, parameters: OperationModel["parameters"], typed: boolean): { specs: ParameterSpec[]; members: Member[] } {
    const order = model.pathNames;
    const specs: { spec: ParameterSpec; location: string; order: number }[] = [];
    // Why only typed: a definition alone (six thousand at 1000 resources) needs no members.
    const members: Record<string, Member[]> | undefined = typed ? { path: [], query: [], header: [], cookie: [] } : undefined;
    for (const parameter of parameters) {
      const { name, in: location } = parameter;
      // OpenAPI 3.1 section 4.8.12.1: header parameters named Accept, Content-Type or Authorization are ignored.
      if (location === "header" && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      const spec = this.specOf(parameter);
      if (spec === undefined) continue;
      if (members && spec.raw === true) {
        const unchecked = `Unchecked: handed as sent, as codegen cannot read it as declared (${this.rawReasons.get(spec) ?? "see codegen's warning"}). Check it here.`;
        const description = [parameter.description, unchecked].filter((text) => text !== undefined).join("\n\n");
        members[location]!.push(member(name, RAW_PARAMETER, { optional: location !== "path" && !parameter.required, description }));
      } else if (members) {
        // Why only typed: a parameter's type (no `use`) asks for no variant.
        const schema = objectOf(parameter.schema ?? parameter.content[0]?.schema);
        const optional = location !== "path" && !parameter.required && this.resolve(schema).default === undefined;
        members[location]!.push(member(name, this.typeOf(schema), { optional, description: parameter.description }));
      }
      // Why once per occurrence: the router hands the readers one value per template expression;
      // a name the template uses twice (`/{id}/x/{id}`, as RFC 6570 allows) is read at each, the last one given.
      if (location !== "path") specs.push({ spec, location, order: order.length });
      else for (const [i, n] of order.entries()) if (n === name) specs.push({ spec, location, order: i });
    }
    return {
      specs: specs.sort((a, b) => a.order - b.order).map((s) => s.spec),
      members: members
        ? MEMBER_PARTS.filter(([location]) => members[location]!.length > 0).map(([location, key]) => member(key, objectType(members[location]!)))
        : [],
    };
  }

  /** parameter(), once per parameter object where it has no problems (their problems are reported at each operation). */
  private specOf(parameter: OperationModel["parameters"][number]): ParameterSpec | undefined {
    const known = this.specs.get(parameter);
    if (known !== undefined) return known;
    const before = this.findings.problems.length;
    const spec = this.parameter(parameter, parameter.pointer);
    if (spec !== undefined && this.findings.problems.length === before) this.specs.set(parameter, spec);
    return spec;
  }

  /**
   * How the dispatcher reads one parameter (ParameterSpec): by its location, style and explode
   * (OpenAPI 3.1 section 4.8.12.4), or as JSON text when `content` describes it.
   */
  private parameter(parameter: ParameterObject, pointer: string): ParameterSpec | undefined {
    const { name, in: location } = parameter;
    const required = location === "path" || parameter.required;
    if (parameter.hasContent) return this.contentParameter(parameter, pointer, required);
    if (parameter.schema === undefined) return this.unreadable(parameter, pointer, "a parameter needs a `schema` or a `content`");
    const schema = parameter.schema;
    this.checkSchema(schema, `${pointer}/schema`);
    const resolved = this.resolve(schema);
    const types = schemaTypes(resolved as JsonSchema);
    const style = parameter.style ?? (location === "query" || location === "cookie" ? "form" : "simple");
    const explode = parameter.explode ?? style === "form";
    const isArray = types.includes("array");
    const isObject = types.includes("object") || (types.length === 0 && resolved.properties !== undefined);
    const spec = { name, in: location, required, schema: this.nodeOf(schema) };
    if (location === "path") return this.pathParameter(spec, style, explode, isArray ? "array" : isObject ? "object" : "scalar", resolved, pointer);
    const supported = SUPPORTED_STYLES[location];
    if (!(supported ?? []).includes(style)) {
      return this.unreadable(
        spec,
        pointer,
        `the style ${stringLiteral(style)} of the ${location} parameter ${stringLiteral(name)} is not supported; codegen reads ${(supported ?? []).join(", ")} ${location} parameters`,
      );
    }
    if (isObject) return this.objectParameter(parameter, spec, resolved, style, explode, pointer);
    const items = this.resolve(objectOf(resolved.items));
    const nested = isArray && schemaTypes(items as JsonSchema).some((t) => t === "array" || t === "object");
    // Why: a deepObject array of objects is written with indices in brackets
    // (`?lines[0][amount]=1&lines[1][amount]=2`), as Stripe's clients, Rails and `qs` send it
    // (docs/openapi.md, "Parameters"); the runtime reads it into the array by its schema.
    if (nested && location === "query" && style === "deepObject") return { ...spec, object: "deep" };
    if (nested) {
      return this.unreadable(
        spec,
        pointer,
        `the ${location} parameter ${stringLiteral(name)} is an array of arrays or objects, which no ${style} parameter can carry unambiguously; describe it with \`content: application/json\`, make it a field of a deepObject parameter, or use a JSON body`,
      );
    }
    // Why: deepObject is defined for objects only; a primitive or array declared with it is read as form (`?name=x`, `?name=1&name=2`).
    if (!isArray) return spec;
    const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    // Why: an exploded cookie array is a cookie per value (`a=1; a=2`), as the Cookie header repeats names (RFC 6265 section 4.2.1).
    const repeat =
      (location === "query" && (style === "form" || style === "deepObject") && explode) ||
      (location === "cookie" && explode) ||
      (location === "query" && style === "deepObject");
    return { ...spec, array: repeat ? "repeat" : separator };
  }

  /** An object-valued parameter: deepObject, exploded fields, or key,value pairs joined by the style's separator. */
  private objectParameter(
    parameter: ParameterObject,
    spec: ParameterSpec,
    resolved: Json,
    style: string,
    explode: boolean,
    pointer: string,
  ): ParameterSpec | undefined {
    if (style === "deepObject") return { ...spec, object: "deep" };
    if (!explode) return { ...spec, object: style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : "," };
    if (style === "spaceDelimited" || style === "pipeDelimited") {
      return this.unreadable(
        spec,
        pointer,
        `the ${style} style does not define exploded objects (OpenAPI 3.1 section 4.8.12.4); set \`explode: false\` or use deepObject for ${stringLiteral(parameter.name)}`,
      );
    }
    if (parameter.in !== "query" && parameter.in !== "cookie") return { ...spec, object: "explode" };
    // Why: an exploded query or cookie object's fields are names of their own (`?a=1&b=2`): it reads
    // its declared fields, and names no other parameter reads only when its schema asks for them
    // (`additionalProperties`) or declares no fields at all (a free-form map); otherwise an unknown
    // name stays an error, as for any operation.
    const fields = this.objectFields(resolved);
    const extra = resolved.additionalProperties;
    const open = extra !== false && (extra !== undefined || fields.length === 0);
    return { ...spec, object: "explode", fields, ...(open ? { open: true } : {}) };
  }

  /** The declared fields of an object schema: its `properties`, and those of its `allOf` parts. */
  private objectFields(schema: Json): string[] {
    const parts = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.map((part) => this.resolve(objectOf(part))) : [])];
    return [...new Set(parts.flatMap((part) => Object.keys(objectOf(part.properties))))];
  }

  /** A parameter described by `content`: one JSON media type, its value JSON text validated against the media type's schema. */
  private contentParameter(parameter: ParameterObject, pointer: string, required: boolean): ParameterSpec | undefined {
    const [entry, ...others] = parameter.content;
    if (entry === undefined || others.length > 0 || !isJsonMediaType(entry.type)) {
      return this.unreadable(
        { name: parameter.name, in: parameter.in, required },
        `${pointer}/content`,
        `the ${parameter.in} parameter ${stringLiteral(parameter.name)} must have exactly one media type in \`content\`, and codegen reads JSON ones (application/json)`,
      );
    }
    const schema = entry.schema ?? {};
    this.checkSchema(schema, `${pointer}/content/${escapeToken(entry.key)}/schema`);
    return { name: parameter.name, in: parameter.in, required, schema: this.nodeOf(schema), json: true };
  }

  /**
   * A path parameter in `simple`, `label` or `matrix` style (OpenAPI 3.1 section 4.8.12.4): a
   * scalar, an array of scalars, or an object whose properties are scalars. Its spec carries the
   * style only when it is not the default (simple, not exploded), so definitions stay as they were.
   */
  private pathParameter(
    spec: ParameterSpec,
    style: string,
    explode: boolean,
    shape: "scalar" | "array" | "object",
    resolved: Json,
    pointer: string,
  ): ParameterSpec | undefined {
    const { name } = spec;
    if (!isPathStyle(style)) {
      return this.unreadable(
        spec,
        pointer,
        `the style ${stringLiteral(style)} of the path parameter ${stringLiteral(name)} is not supported; codegen reads simple, label, matrix path parameters`,
      );
    }
    const nested = (schema: Json) => schemaTypes(this.resolve(schema) as JsonSchema).some((t) => t === "array" || t === "object");
    const members = shape === "array" ? [objectOf(resolved.items)] : shape === "object" ? Object.values(objectOf(resolved.properties)).map(objectOf) : [];
    if (shape === "object" && resolved.additionalProperties !== undefined && resolved.additionalProperties !== false)
      members.push(objectOf(resolved.additionalProperties));
    if (members.some(nested)) {
      return this.unreadable(
        spec,
        pointer,
        `the path parameter ${stringLiteral(name)} holds arrays or objects inside its ${shape}, which no path style can carry unambiguously; use a JSON body`,
      );
    }
    const plain = style === "simple" && !explode && shape !== "object";
    return {
      ...spec,
      ...(shape === "array" ? { array: "," } : {}),
      ...(plain ? {} : { path: { style, explode, shape } }),
    };
  }

  private requestBody(body: RequestBodyObject | undefined, pointer: string, typed: boolean): { spec?: BodySpec; members: Member[] } {
    if (body === undefined) return { members: [] };
    const required = body.required;
    const json = body.content.filter((t) => isJsonMediaType(t.type));
    const raw = body.content.filter((t) => !isJsonMediaType(t.type));
    const described = json.find((t) => t.schema !== undefined);
    const schema = described?.schema;
    if (schema) this.checkSchema(schema, `${pointer}/content/${escapeToken(described!.type)}/schema`);
    const members: Member[] = [];
    // The body's type is made, or untyped asked for: it asks for the request variants of its schemas.
    if (!typed && json.length > 0) this.askFor(schema, "request");
    const description = body.description;
    if (typed && json.length > 0) members.push(member("body", this.typeOf(schema, "request"), { optional: !(required && raw.length === 0), description }));
    if (typed && raw.length > 0) members.push(member("rawBody", word("RawBody"), { optional: !(required && json.length === 0), description }));
    return {
      spec: { required, json: json.map((t) => t.type), ...(schema ? { schema: this.nodeOf(schema) } : {}), raw: raw.map((t) => t.type) },
      members,
    };
  }

  private responses(
    responses: readonly ResponseObject[],
    pointer: string,
    typed: boolean,
  ): { media: Record<string, readonly string[]>; type: TypeExpr; jsonOnly: boolean } {
    // Why statusMap: these maps live in the model (each route's responses) for the whole run.
    const media = statusMap<readonly string[]>();
    let anyJson = false;
    let anyRaw = false;
    const members: TypeExpr[] = [];
    const comments: (string | undefined)[] = [];
    let declared = 0;
    for (const response of responses) {
      const status = response.status;
      if (!isStatusKey(status)) {
        const reason = `${stringLiteral(status)} is not a status code, a range like 4XX, or default`;
        this.findings.handle(`${pointer}/${escapeToken(status)}`, reason, "ignores this response: no handler can answer it");
        continue;
      }
      declared++;
      // Read once per response object (responseObjects): most are an API's shared answers.
      const { content: types, json, raw } = response;
      media[status] = response.types;
      if (json.length > 0) anyJson = true;
      if (raw.length > 0) anyRaw = true;
      // The JSON body's type is made, or untyped asked for: it asks for the response variants of its schemas.
      const schema = response.jsonSchema;
      if (!typed) {
        this.askFor(schema, "response");
        continue;
      }
      const statusMember = member("status", word(/^[0-9]{3}$/.test(status) ? status : "number"));
      // The response's description documents its member of the union.
      const doc = docComment(response.description);
      const headers = member("headers", RESPONSE_HEADERS, { optional: true });
      const add = (type: TypeExpr) => {
        members.push(type);
        comments.push(doc);
      };
      if (types.length === 0) add(objectType([statusMember, headers]));
      if (json.length > 0) {
        const contentTypes = unionType([...new Set(json.map((t) => t.type))].map(literalType));
        add(objectType([statusMember, member("body", this.typeOf(schema, "response")), member("contentType", contentTypes, { optional: true }), headers]));
      }
      if (raw.length > 0) {
        const exact = raw.every((t) => !t.type.includes("*"));
        const contentTypes = exact ? unionType([...new Set(raw.map((t) => t.type))].map(literalType)) : word("string");
        add(objectType([statusMember, member("contentType", contentTypes), member("body", BYTES), headers]));
      }
    }
    // Why: OpenAPI 3.1 lets an operation declare no responses; its handler may then answer any
    // status, with a JSON body, bytes of a type it names, or nothing (README, "OpenAPI as input").
    if (declared === 0) return { media: { default: ["*/*"] }, type: ANY_RESPONSE, jsonOnly: false };
    return { media, type: members.length === 0 ? word("never") : documentedUnion(members, comments), jsonOnly: anyJson && !anyRaw };
  }

  /**
   * The operation's security requirements (src/compile/api/security.ts, one reading for every kind of
   * operation); their problems recorded, the schemes checked by hooks noted.
   */
  security(model: OperationModel): OperationModel["security"] {
    for (const problem of model.security.problems) this.findings.problems.push(new UnsupportedConstruct(problem.pointer, problem.reason));
    for (const name of model.security.hooks) this.hookSchemes.add(name);
    return model.security;
  }

  /** A schema with its `$ref` followed (to a named schema of the document). */
  private resolve(schema: Json): Json {
    const name = refName(schema as JsonSchema);
    if (name === undefined) return schema;
    const schemas = objectOf(objectOf(this.document.components).schemas);
    return objectOf(Object.hasOwn(schemas, name) ? schemas[name] : undefined);
  }

  /** The validator node of a schema (schemaNode) as a route holds it (routeNode), made once per schema object. */
  nodeOf(schema: Json): SchemaNode {
    let node = this.nodes.get(schema);
    if (node === undefined) {
      node = routeNode(schemaNode(schema as JsonSchema, this.checks), this.tableNodes);
      this.nodes.set(schema, node);
    }
    return node;
  }

  private checkSchema(schema: Json, pointer: string): void {
    // A schema found clean is clean at any place; one with problems is reported at each.
    if (this.checked.has(schema)) return;
    const problems = unsupportedKeywords(schema as JsonSchema, pointer);
    if (problems.length === 0) this.checked.add(schema);
    for (const problem of problems) {
      this.findings.handle(
        problem.pointer,
        `the keyword \`${problem.keyword}\` is not one codegen's request validator checks; express the constraint with the supported keywords, or check it in the handler`,
        "checks the rest of the schema and not this keyword: the handler must check what it says",
      );
    }
  }

  /**
   * A parameter that cannot be read by its style or schema: in a document written by others,
   * handed to the handler as sent (ParameterSpec `raw`, typed RawParameter); else a problem.
   */
  private unreadable(parameter: Pick<ParameterSpec, "name" | "in" | "required">, pointer: string, reason: string): ParameterSpec | undefined {
    const { name, in: location } = parameter;
    const instead = `hands the ${location} parameter ${stringLiteral(name)} to its handler as sent (a RawParameter: the text, or the texts where repeated), checked for nothing but being present when required: the handler must check it`;
    if (!this.findings.handle(pointer, reason, instead)) return undefined;
    // Why: its schema is not checked at all now, so a warning that a keyword of it is not checked says nothing more.
    for (const at of this.findings.handled.keys()) if (at.startsWith(`${pointer}/`)) this.findings.handled.delete(at);
    const spec: ParameterSpec = { name, in: location, required: location === "path" || parameter.required, schema: {}, raw: true };
    this.rawReasons.set(spec, reason);
    return spec;
  }
}

/** The styles codegen reads of a parameter by location (but path: pathParameter). */
const SUPPORTED_STYLES: { readonly [location: string]: readonly string[] | undefined } = {
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** The status keys seen to be valid (most documents use a dozen): looked up, not matched again. */
const STATUS_KEYS = new Set<string>();

/** OpenAPI 3.1 section 4.8.12.1: header parameters of these names (lower case) are ignored. */
const IGNORED_HEADERS: ReadonlySet<string> = new Set(["accept", "content-type", "authorization"]);

/** Each location of parameters and its member of a handler's input. */
const MEMBER_PARTS = [
  ["path", "path"],
  ["query", "query"],
  ["header", "headers"],
  ["cookie", "cookies"],
] as const;

/** Whether a key of `responses` is a status code, a range like `4XX`, or `default`. */
function isStatusKey(key: string): boolean {
  if (STATUS_KEYS.has(key)) return true;
  if (!/^(?:[1-5](?:[0-9]{2}|XX)|default)$/i.test(key)) return false;
  STATUS_KEYS.add(key);
  return true;
}

/** What `codegen serve` answers (src/serve/examples.ts): the first declared success, a 2XX code, else a 2XX range or default as 200, else the first code. */
function mockAnswer(responses: readonly ResponseObject[], pointer: string): ApiModel["mockAnswers"][string] {
  const keys = responses.map((response) => response.status);
  const key = keys.find((k) => /^2[0-9]{2}$/.test(k)) ?? keys.find((k) => /^2XX$/i.test(k) || k === "default") ?? keys.find((k) => /^[0-9]{3}$/.test(k));
  const status = key !== undefined && /^[0-9]{3}$/.test(key) ? Number(key) : 200;
  if (key === undefined || status === 204 || status === 304) return { status };
  return { status, responseAt: `${pointer}/responses/${escapeToken(key)}` };
}

const RESPONSE_HEADERS = word("ResponseHeaders");
/** A parameter handed as sent (runtime/requests.gen.ts). */
const RAW_PARAMETER = word("RawParameter");
const BYTES = unionType([word("string"), word("Uint8Array")]);
/** The result of an operation that declares no responses. */
const ANY_RESPONSE = objectType([
  member("status", word("number")),
  member("body", word("unknown"), { optional: true }),
  member("contentType", word("string"), { optional: true }),
  member("headers", RESPONSE_HEADERS, { optional: true }),
]);

/** The path styles codegen reads (OpenAPI 3.1 section 4.8.12.4): simple, label and matrix. */
const isPathStyle = (style: string): style is PathStyle["style"] => style === "simple" || style === "label" || style === "matrix";
