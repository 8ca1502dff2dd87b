/**
 * The declarations of resources/*.gen.ts and operations/*.gen.ts in prettier's layout (issue 14):
 * their type aliases (src/render/type-layout.ts) and the binder's signature.
 */
import { type TypeExpr, typeText } from "../model/type-expr.js";
import type { OperationGroupView, OperationView, ResourceView } from "../model/view.js";
import { PRINT_WIDTH, laidOut, widthOf } from "./layout.js";
import { typeAliasStatement } from "./type-layout.js";

/** `export type name = type;`, laid out where sure. */
const alias = (name: string, type: string | TypeExpr) =>
  laidOut(
    () => typeAliasStatement(name, type),
    () => `export type ${name} = ${typeText(type)};`,
  );

/**
 * The binder's first line(s): flat where it fits, else with its return type broken, as prettier
 * prints a one-parameter function whose return type is an object type (a first line that is still
 * too long fails linesFit, and the file goes to prettier).
 */
export function binderSignature(binderName: string, interfaceName: string): string {
  const head = `export function ${binderName}(handlers: ${interfaceName}): {`;
  const flat = `${head} readonly [operationId: string]: OperationHandler } {`;
  return widthOf(flat, PRINT_WIDTH) <= PRINT_WIDTH ? flat : `${head}\n  readonly [operationId: string]: OperationHandler;\n} {`;
}

/** A handler's input and result declarations, and whether both are sure. */
export function handlerTypeDeclarations(
  inputName: string,
  inputType: string | TypeExpr,
  resultName: string,
  resultType: string | TypeExpr,
): { inputDeclaration: string; resultDeclaration: string; laidOut: boolean } {
  const input = alias(inputName, inputType);
  const result = alias(resultName, resultType);
  return { inputDeclaration: input.text, resultDeclaration: result.text, laidOut: input.sure && result.sure };
}

/** An operation's view with its input and result declarations (handlerTypeDeclarations). */
function methodDeclarations(operation: OperationView): OperationView & { laidOut: boolean } {
  return { ...operation, ...handlerTypeDeclarations(operation.inputName, operation.inputType, operation.resultName, operation.resultType) };
}

/**
 * A resource's view with its stored type's declaration laid out (its methods' are: build.ts) and
 * its stored type as its text; `laidOut` false: its file is left to prettier. Why not the type's
 * syntax (issue 14): held by the view until its file is written, a thousand resources' type
 * expressions were megabytes more for every collection to walk.
 */
export function resourceLayout(resource: ResourceView<TypeExpr>): ResourceView {
  const stored = alias(resource.storedName, resource.storedType);
  return {
    ...resource,
    storedType: resource.storedType.text,
    storedDeclaration: stored.text,
    binderSignature: binderSignature(resource.binderName, resource.interfaceName),
    laidOut: stored.sure && resource.methods.every((m) => m.laidOut),
  };
}

/** An operation group's view with its declarations laid out (as resourceLayout). */
export function operationGroupLayout(group: OperationGroupView): OperationGroupView {
  const operations = group.operations.map(methodDeclarations);
  return { ...group, operations, binderSignature: binderSignature(group.binderName, group.interfaceName), laidOut: operations.every((o) => o.laidOut) };
}
