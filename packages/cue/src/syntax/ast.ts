/** The syntax tree of CUE source, as the parser builds it (spec.md, "Expressions" and "Structs"). */
import type { Position } from './scanner';

export type Expr =
  | {
      readonly type: 'literal';
      readonly kind: 'int' | 'float' | 'string' | 'bytes' | 'bool' | 'null' | 'bottom';
      readonly value: string | boolean | null;
      readonly at: Position;
    }
  | { readonly type: 'interpolation'; readonly bytes: boolean; readonly parts: ReadonlyArray<string | Expr>; readonly at: Position }
  | { readonly type: 'ident'; readonly name: string; readonly at: Position }
  | { readonly type: 'selector'; readonly target: Expr; readonly name: string; readonly at: Position }
  | { readonly type: 'index'; readonly target: Expr; readonly index: Expr; readonly at: Position }
  | { readonly type: 'slice'; readonly target: Expr; readonly low?: Expr; readonly high?: Expr; readonly at: Position }
  | { readonly type: 'call'; readonly callee: Expr; readonly args: readonly Expr[]; readonly at: Position }
  | { readonly type: 'unary'; readonly op: string; readonly operand: Expr; readonly at: Position }
  | { readonly type: 'binary'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly at: Position }
  | { readonly type: 'paren'; readonly expr: Expr; readonly at: Position }
  | { readonly type: 'alias'; readonly name: string; readonly expr: Expr; readonly at: Position }
  | StructLit
  | ListLit;

export interface StructLit {
  readonly type: 'struct';
  readonly decls: readonly Decl[];
  readonly at: Position;
  /** The names it declares, made by the evaluator when first looked up (a property reads faster than a WeakMap). */
  scope?: ReadonlyMap<string, ScopeEntry>;
  /** Whether it makes a struct rather than the value it embeds, decided by the evaluator when first unified. */
  makesStruct?: boolean;
  /** Its embeddings and comprehensions, computed once when first asked (closedness.ts closingDefinitions). */
  embeds?: readonly Decl[];
}

export type ScopeEntry =
  | { readonly kind: 'field'; readonly label: string; readonly quoted: boolean }
  /** The alias of a field whose label is computed (`C="foo\(bar)": {...}`). */
  | { readonly kind: 'computed'; readonly label: Expr }
  | { readonly kind: 'let'; readonly expr: Expr };

export interface ListLit {
  readonly type: 'list';
  readonly elements: ReadonlyArray<Expr | Comprehension>;
  /** `...` or `...T` closing the list: more elements of that type may follow. */
  readonly rest?: { readonly type?: Expr };
  readonly at: Position;
}

/** A field's label: a name (identifier or string), a computed `(expr)` or a pattern `[expr]`. */
export type Label =
  | { readonly kind: 'name'; readonly name: string; readonly quoted: boolean }
  | { readonly kind: 'interpolated'; readonly expr: Expr }
  | { readonly kind: 'dynamic'; readonly expr: Expr }
  | { readonly kind: 'pattern'; readonly expr: Expr; readonly alias?: string };

export interface Field {
  readonly type: 'field';
  readonly label: Label;
  /** `X=` before the label: the field's alias. */
  readonly alias?: string;
  /** `?` optional, `!` required, none: regular. */
  readonly constraint?: '?' | '!';
  readonly value: Expr;
  readonly attributes: readonly string[];
  readonly at: Position;
}

export type Clause =
  | { readonly type: 'for'; readonly key?: string; readonly value: string; readonly source: Expr; readonly at: Position }
  | { readonly type: 'if'; readonly condition: Expr; readonly at: Position }
  | { readonly type: 'let'; readonly name: string; readonly expr: Expr; readonly at: Position };

export interface Comprehension {
  readonly type: 'comprehension';
  readonly clauses: readonly Clause[];
  readonly body: StructLit;
  readonly at: Position;
}

export type Decl =
  | Field
  | Comprehension
  | { readonly type: 'embed'; readonly expr: Expr; readonly at: Position }
  | { readonly type: 'let'; readonly name: string; readonly expr: Expr; readonly at: Position }
  | { readonly type: 'ellipsis'; readonly constraint?: Expr; readonly at: Position }
  | { readonly type: 'attribute'; readonly text: string; readonly at: Position };

export interface Import {
  readonly path: string;
  readonly alias?: string;
  readonly at: Position;
}

export interface File {
  readonly packageName?: string;
  readonly imports: readonly Import[];
  readonly decls: readonly Decl[];
}
