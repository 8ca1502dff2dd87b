/**
 * The ApiModel, the one contract between compile/ and emit/ (docs/architecture.md): data, not code.
 * What the generated server reads as data (schema nodes, routes, resource specs, schemes, index
 * links, tables) has the runtime's own types, so those values are type-checked where they cross
 * into the runtime. Every string in it that lands in code is already safe there (identifiers checked, literals escaped, comments defused); the types are
 * type expressions (type-expr.ts) and the tables plain values, which the printer
 * (src/emit/print.ts) lays out when a file is rendered.
 */

import type { RouteSpec } from "#runtime/dispatch.gen.js";
import type { SchemeSpec } from "#runtime/guards.gen.js";
import type { Link, ResourceSpec } from "#runtime/resources.gen.js";
import type { SchemaNode } from "#runtime/validate.gen.js";
import type { SchemaSnapshot } from "./tables.js";
import type { TypeExpr } from "./type-expr.js";

/** The data of api.gen.ts, as values. */
export interface ApiData {
  readonly schemas: readonly (readonly [name: string, node: SchemaNode])[];
  readonly resources: readonly (readonly [collection: string, spec: ResourceSpec])[];
  readonly routes: readonly RouteSpec[];
  readonly securitySchemes: { readonly [name: string]: SchemeSpec };
  readonly index: readonly Link[];
}

/** A named type of types.gen.ts. */
export interface TypeView {
  readonly name: string;
  /** Its doc comment's lines (none: no comment; a template's `#if` reads an empty list as false). */
  readonly docLines: readonly string[];
  readonly type: TypeExpr;
}

/** A method of a handler interface: an operation written by others as it is, a resource's with its kind (HandlerMethodView). */
export interface OperationView {
  readonly operationId: string;
  readonly docLines: readonly string[];
  /** The names (`ListLoansInput`, `ListLoansResult`) and types of its input and its result (of others: the union of its declared responses). */
  readonly inputName: string;
  readonly inputType: TypeExpr;
  readonly resultName: string;
  readonly resultType: TypeExpr;
}

/** One operation of a resource's handler interface and its binding in the server. */
export interface HandlerMethodView extends OperationView {
  /** The result type's doc comment. */
  readonly resultDoc: string;
  /** Its kind, for the stores' templates; exactly one is true. */
  readonly isList: boolean;
  readonly isGet: boolean;
  readonly isCreate: boolean;
  readonly isReplace: boolean;
  readonly isUpdate: boolean;
  readonly isDelete: boolean;
  /** An action (declaration `actions`), and its `to` state as a literal ("" when none). */
  readonly isAction: boolean;
  readonly toLiteral: string;
  /** An action's body fields the stores write with `to`, as an array literal (`["notes"]`); "" when none. */
  readonly storesLiteral: string;
  /**
   * Whether its change is guarded by the status the server checked (the PostgreSQL store's
   * `update` argument). Why:
   * an action whose state some status refuses declares 409; only then may a change that lost a
   * race be refused (an action every state allows simply applies).
   */
  readonly guarded: boolean;
  /** A list's `sort` and `page` (declaration operation options), and whether it has either or declared `query`. */
  readonly hasSort: boolean;
  readonly hasPage: boolean;
  readonly hasListing: boolean;
}

/** A handler interface, a resource's or a group's of operations written by others, and the file that declares it. */
interface HandlerInterfaceView {
  /** The handlers' property name (`blogPosts`), interface (`BlogPostsHandlers`) and binder (`bindBlogPosts`: the handlers as the dispatcher calls them, by operationId). */
  readonly property: string;
  readonly interfaceName: string;
  readonly binderName: string;
  /** The file name under resources/ or operations/ (a safe path segment: a resource's is its collection name). */
  readonly fileName: string;
  /** Whether its file refers to named schemas (`T.`) and to `Principal`. */
  readonly usesTypes: boolean;
  readonly usesPrincipal: boolean;
}

/** A resource: its handler interface and its store (its spec for the dispatcher is in ApiData's `resources`). */
export interface ResourceView extends HandlerInterfaceView {
  /** The stored object's type name (`StoredBlogPost`) and type. */
  readonly storedName: string;
  readonly storedType: TypeExpr;
  /** The collection as a string literal, and as text for a comment. */
  readonly collectionLiteral: string;
  readonly collectionComment: string;
  /** The field names the stores filter a list on (not declared `query`). */
  readonly filters: readonly string[];
  readonly methods: readonly HandlerMethodView[];
  /** Whether store.gen.ts names it (every method but delete casts to it). */
  readonly storeUsesStored: boolean;
  /** Whether some handler may return a HandlerRefusal (declared `errors`). */
  readonly usesRefusal: boolean;
  /** Whether some handler may return a store's refusal (every write's). */
  readonly usesStoreRefusal: boolean;
}

/** A handler interface of operations written by others: one per tag (or first path segment). */
export interface OperationGroupView extends HandlerInterfaceView {
  /** The tag or path segment, as text for a comment. */
  readonly labelComment: string;
  readonly operations: readonly OperationView[];
  /** Whether its file refers to `RawBody`, and whether a handler's input has a parameter handed as sent (RawParameter). */
  readonly usesRawBody: boolean;
  readonly usesRawParameter: boolean;
}

/** A security scheme the application checks with a hook (API keys, HTTP schemes but bearer, others). */
export interface SecurityHookView {
  /** The scheme's name, and as a property key of generated code. */
  readonly name: string;
  readonly key: string;
  readonly comment: string;
}

/** The emitted document as document.gen.ts holds it (served at `/openapi.json`, `/openapi.yaml`, `/docs`). */
export interface DocumentView {
  /** The path of the first server URL (`"/v1"`, or `""`). */
  readonly basePath: string;
  /**
   * The document as JSON data: document.gen.ts holds its JSON text in lines (jsonDocumentLiteral),
   * printed as that file is rendered; the server answers it compact.
   */
  readonly data: unknown;
  /** openapi.yaml's text, only where the server's own writer would not make it from the JSON. */
  readonly yaml?: string;
  /** Told the data's compact JSON text (`JSON.stringify`'s) a piece at a time as the literal is printed, then its end. */
  readonly json?: JsonListener;
}

/** What is told a JSON text a piece at a time (DocumentView's `json`). */
export interface JsonListener {
  add(piece: string): void;
  end(): void;
}

/** Everything the templates of one API read. */
export interface ApiModel {
  /** The first line of every generated file. */
  readonly header: string;
  readonly types: readonly TypeView[];
  readonly resources: readonly ResourceView[];
  /** api.gen.ts's data: schemas, resources, routes, security schemes and index links. */
  readonly api: ApiData;
  /** Whether the API has a token endpoint (so createServer takes `issueToken`). */
  readonly hasTokenEndpoint: boolean;
  /** Whether any operation has guards (so createServer needs `verifyToken`). */
  readonly hasGuards: boolean;
  readonly hasResources: boolean;
  /** Whether some action stores body fields (so the stores import actionChange). */
  readonly actionsStoreFields: boolean;
  /** Whether some operation changes an object (so the in-memory store imports madeSignal). */
  readonly hasChanges: boolean;
  /** Whether some operation reads or changes objects (so the PostgreSQL store imports cancellationOf). */
  readonly hasStoreCalls: boolean;
  /** Whether createServer reads `options.handlers` (an API with neither resources nor operations does not). */
  readonly usesHandlers: boolean;
  /** Operations written by others (documents without `x-codegen-operation`), in handler groups. */
  readonly operationGroups: readonly OperationGroupView[];
  /** handlers.gen.ts's `ResourceHandlers`: `Omit<Handlers, ...>` of the operation groups (APIs with operations). */
  readonly resourceHandlers?: TypeExpr;
  readonly securityHooks: readonly SecurityHookView[];
  /** The PostgreSQL tables of its resources (none without resources). */
  readonly tables: SchemaSnapshot;
  /**
   * What `codegen serve` answers for each operation written by others (not rendered): a status,
   * and the JSON pointer of its response object in the document when the status has one.
   */
  readonly mockAnswers: { readonly [operationId: string]: { readonly status: number; readonly responseAt?: string } };
  /**
   * Declared error schemas (by their JSON pointer) the server cannot build its own refusals in:
   * their first uses, each with how the server answers instead, and how many more (generate warns at each).
   */
  readonly unmappedErrors?: readonly { readonly pointer: string; readonly responses: readonly string[]; readonly more: number }[];
  /**
   * What of a document written by others the server renders another way than written (a
   * parameter handed raw, a keyword not checked, a response, path or operation left out), each at
   * its place with why and what the server does instead (generate warns at each).
   */
  readonly handled?: readonly { readonly pointer: string; readonly reason: string; readonly instead: string }[];
}
