/**
 * The view model the templates read. Every string in it that lands in code is already safe
 * there (identifiers checked, literals escaped, comments defused); templates only place them.
 */

import type { ApiStatements } from "../render/api-layout.js";
import type { TypeExpr } from "./type-expr.js";

/** A named type of types.gen.ts. */
export interface TypeView {
  readonly name: string;
  readonly docLines: readonly string[];
  readonly hasDoc: boolean;
  /** The TypeScript type expression. */
  readonly type: string;
  /** `export type Name = type;` in prettier's layout where `laidOut` (src/render/type-layout.ts), else as written. */
  readonly declaration: string;
  readonly laidOut: boolean;
}

/** One operation of a resource's handler interface and its binding in the server. */
export interface HandlerMethodView {
  readonly operationId: string;
  readonly docLines: readonly string[];
  /** The names (`ListLoansInput`, `ListLoansResult`) and type literals of its input and its result. */
  readonly inputName: string;
  readonly inputType: string;
  readonly resultName: string;
  readonly resultType: string;
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
  /** A list's `sort` and `page` (declaration operation options), and whether it has either or declared `query`. */
  readonly hasSort: boolean;
  readonly hasPage: boolean;
  readonly hasListing: boolean;
  /** The resource's filter names as a literal: what the in-memory store filters on (not declared `query`). */
  readonly listFilters: string;
  /** Its input and result type declarations in their final layout (src/render/handler-layout.ts), and whether both are sure. */
  readonly inputDeclaration?: string;
  readonly resultDeclaration?: string;
  readonly laidOut?: boolean;
}

/**
 * A resource: its handler interface, its store and its spec for the dispatcher. `Type`: how its
 * stored type is held: its text, or until laid out its text and syntax (type-expr.ts).
 */
export interface ResourceView<Type extends string | TypeExpr = string> {
  /** The handlers' property name (`blogPosts`). */
  readonly property: string;
  /** Interface name (`BlogPostsHandlers`). */
  readonly interfaceName: string;
  /** The stored object's type name (`StoredBlogPost`) and type. */
  readonly storedName: string;
  readonly storedType: Type;
  /** The collection as a string literal, and as text for a comment. */
  readonly collectionLiteral: string;
  readonly collectionComment: string;
  /** The dispatcher's ResourceSpec, as a value (api.gen.ts's literal is laid out from it: src/render/api-layout.ts). */
  readonly specValue: unknown;
  readonly methods: readonly HandlerMethodView[];
  /** The file name under resources/ (the collection name, a safe path segment). */
  readonly fileName: string;
  /** Whether its file refers to named schemas (`T.`) and to `Principal`. */
  readonly usesTypes: boolean;
  /** Whether store.gen.ts names it (every method but delete casts to it). */
  readonly storeUsesStored: boolean;
  readonly usesPrincipal: boolean;
  /** Whether some handler may return a HandlerRefusal (declared `errors`). */
  readonly usesRefusal: boolean;
  /** Its binder (`bindLoans`): the handlers as the dispatcher calls them, by operationId. */
  readonly binderName: string;
  /** The stored type's declaration and the binder's signature in their final layout, and whether all of its file's layout is sure (src/render/handler-layout.ts). */
  readonly storedDeclaration?: string;
  readonly binderSignature?: string;
  readonly laidOut?: boolean;
}

/** The view of one resource's own file. */
export interface ResourceFileView {
  readonly header: string;
  readonly resource: ResourceView;
}

/** An operation of a document written by others: a method of its group's handler interface. */
export interface OperationView {
  readonly operationId: string;
  readonly docLines: readonly string[];
  /** Names and type literals of its input and of the union of its declared responses. */
  readonly inputName: string;
  readonly inputType: string;
  readonly resultName: string;
  readonly resultType: string;
  /** Its input and result type declarations in their final layout (src/render/handler-layout.ts). */
  readonly inputDeclaration?: string;
  readonly resultDeclaration?: string;
}

/** A handler interface of operations written by others: one per tag (or first path segment). */
export interface OperationGroupView {
  /** The handlers' property name (`pets`), interface (`PetsHandlers`) and binder (`bindPets`). */
  readonly property: string;
  readonly interfaceName: string;
  readonly binderName: string;
  /** The file name under operations/ (a safe path segment). */
  readonly fileName: string;
  /** The tag or path segment, as text for a comment. */
  readonly labelComment: string;
  readonly operations: readonly OperationView[];
  /** Whether its file refers to named schemas (`T.`), to `Principal` and to `RawBody`. */
  readonly usesTypes: boolean;
  readonly usesPrincipal: boolean;
  readonly usesRawBody: boolean;
  /** The binder's signature in its final layout, and whether all of its file's layout is sure (src/render/handler-layout.ts). */
  readonly binderSignature?: string;
  readonly laidOut?: boolean;
}

/** The per-group file's view. */
export interface OperationGroupFileView {
  readonly header: string;
  readonly group: OperationGroupView;
}

/** A security scheme the application checks with a hook (API keys, HTTP schemes but bearer, others). */
export interface SecurityHookView {
  /** The scheme's name, and as a property key of generated code. */
  readonly name: string;
  readonly key: string;
  readonly comment: string;
}

/** The emitted document as literals of document.gen.ts (served at `/openapi.json`, `/openapi.yaml`, `/docs`). */
export interface DocumentView {
  /**
   * The members of document.gen.ts's object, laid out (src/render/document-layout.ts): the path of
   * the first server URL (`"/v1"`, or `""`), the JSON text and the YAML text, each a string
   * literal; the YAML only where the server's own writer would not give it.
   */
  readonly members: string;
}

/** Everything the templates of one API read. */
export interface ApiView {
  /** The first line of every generated file. */
  readonly header: string;
  readonly types: readonly TypeView[];
  readonly resources: readonly ResourceView[];
  /** The index links as a literal. */
  readonly index: string;
  /** api.gen.ts's declarations (schemas, resources, routes, securitySchemes, index), laid out (src/render/api-layout.ts). */
  readonly api: ApiStatements;
  /** The template-rendered files whose every part is in prettier's layout already (formatting skips them). */
  readonly finalFiles: readonly string[];
  /** Files of canonical templates (src/render/render.ts) holding a part whose layout is not sure: left to prettier. */
  readonly unsureFiles: readonly string[];
  /** Whether the API has a token endpoint (so createServer takes `issueToken`). */
  readonly hasTokenEndpoint: boolean;
  /** Whether any operation has guards (so createServer needs `verifyToken`). */
  readonly hasGuards: boolean;
  readonly hasResources: boolean;
  /** Whether createServer reads `options.handlers` (an API with neither resources nor operations does not). */
  readonly usesHandlers: boolean;
  /** Operations written by others (documents without `x-codegen-operation`). */
  readonly hasOperations: boolean;
  readonly operationGroups: readonly OperationGroupView[];
  /** handlers.gen.ts's `export type ResourceHandlers = Omit<Handlers, ...>;` in prettier's layout where sure (APIs with operations). */
  readonly resourceHandlersDeclaration: string;
  /** The security schemes as the operation runner reads them, as a literal. */
  readonly securitySchemes: string;
  readonly securityHooks: readonly SecurityHookView[];
  readonly hasSecurityHooks: boolean;
  /** What `codegen serve` answers for each operation written by others (not rendered). */
  readonly mockAnswers: { readonly [operationId: string]: { readonly status: number; readonly body?: unknown; readonly contentType?: string } };
}
