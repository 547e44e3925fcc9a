/** The syntax stage's public face (`@cgp/cue/syntax`): CUE read into its syntax tree, and the fields a script declares. */
export type { Decl, Expr, Field, File, StructLit } from './ast';
export { type DeclaredField, declaredFields } from './declared-fields';
export { parseExpression, parseFile } from './parser';
export { CueSyntaxError, type Position } from './scanner';
