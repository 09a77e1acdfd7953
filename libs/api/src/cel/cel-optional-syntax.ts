import type { parse } from '@bufbuild/cel';

/**
 * CEL's optional syntax (cel-go's parser with EnableOptionalSyntax, which Kubernetes turns on):
 * `x.?field`, `x[?index]`, `[?elem, ...]` and `{?key: value}`. The @bufbuild/cel parser has no
 * grammar for them, so the source is first rewritten, token by token (strings and comments left
 * alone), into plain CEL that marks each optional form with a reserved name; once parsed, the marks
 * are turned into the AST cel-go builds: `_?._(x, "field")`, `_[?_](x, index)`, a list's
 * optionalIndices and a map entry's optionalEntry.
 */

type Expr = ReturnType<typeof parse>['expr'];

const PREFIX = '__svc_optional_';
const SELECT = `${PREFIX}select__`;
const INDEX = `${PREFIX}index__`;
const ELEMENT = `${PREFIX}element__`;
const KEY = `${PREFIX}key__`;

interface Token {
  kind: 'ident' | 'literal' | 'punct';
  text: string;
  start: number;
  end: number;
}

const PUNCT = ['==', '!=', '<=', '>=', '&&', '||', '(', ')', '[', ']', '{', '}', '.', ',', '?', ':', '+', '-', '*', '/', '%', '!', '<', '>'];

/** The end of the string literal starting at `i` (prefix letters included), or -1 if unterminated. */
function stringEnd(source: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < source.length && /[rRbB]/.test(source[j])) {
    if (source[j] === 'r' || source[j] === 'R') raw = true;
    j++;
  }
  const quote = source[j];
  const triple = source.startsWith(quote.repeat(3), j);
  const close = triple ? quote.repeat(3) : quote;
  j += close.length;
  while (j < source.length) {
    if (!raw && source[j] === '\\') {
      j += 2;
      continue;
    }
    if (source.startsWith(close, j)) return j + close.length;
    if (!triple && source[j] === '\n') return -1;
    j++;
  }
  return -1;
}

/** CEL's tokens, roughly: enough to tell identifiers, literals and punctuation apart. Undefined when it cannot. */
function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    const prefixed = /^[rRbB]{1,2}['"]/.test(source.slice(i, i + 3));
    if (c === '"' || c === "'" || prefixed) {
      const end = stringEnd(source, i);
      if (end < 0) return undefined;
      tokens.push({ kind: 'literal', text: source.slice(i, end), start: i, end });
      i = end;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 256));
    if (ident) {
      tokens.push({ kind: 'ident', text: ident[0], start: i, end: i + ident[0].length });
      i += ident[0].length;
      continue;
    }
    const number = /^(?:0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?|\.\d+(?:[eE][+-]?\d+)?)/.exec(source.slice(i, i + 256));
    if (number && !(c === '.' && tokens.length > 0 && tokens[tokens.length - 1].kind !== 'punct')) {
      tokens.push({ kind: 'literal', text: number[0], start: i, end: i + number[0].length });
      i += number[0].length;
      continue;
    }
    const punct = PUNCT.find((p) => source.startsWith(p, i));
    if (punct === undefined) return undefined;
    tokens.push({ kind: 'punct', text: punct, start: i, end: i + punct.length });
    i += punct.length;
  }
  return tokens;
}

const KEYWORDS = new Set(['in']);

/** Whether a token ends an operand, so that a following `[` indexes it. */
function endsOperand(token: Token | undefined): boolean {
  if (token === undefined) return false;
  if (token.kind === 'literal') return true;
  if (token.kind === 'ident') return !KEYWORDS.has(token.text);
  return token.text === ')' || token.text === ']' || token.text === '}';
}

interface Frame {
  open: string;
  kind: 'paren' | 'index' | 'optional-index' | 'list' | 'map' | 'struct';
  /** An optional list element or map key is open and needs its `)`. */
  pending: boolean;
  /** Ternaries open inside the current map key. */
  ternaries: number;
}

/** Whether the source uses the reserved names of the rewrite (then it is refused, as an undeclared name). */
export function usesReservedNames(source: string): boolean {
  return source.includes(PREFIX);
}

/**
 * The source with the optional syntax marked in plain CEL, or the source itself when it has none.
 * Offsets after a rewritten form shift, so a syntax error's column can be off by the marks' length.
 */
export function rewriteOptionalSyntax(source: string): string {
  return rewriteOptionalSyntaxMapped(source).text;
}

/** An edit of the rewrite: `remove` characters at `at` of the original replaced by `insert`. */
interface Edit {
  at: number;
  remove: number;
  insert: string;
}

/** The rewritten source, and the offset in the original source of each offset in the rewritten one. */
export interface RewrittenSource {
  text: string;
  toOriginal: (offset: number) => number;
}

function mapped(source: string, edits: readonly Edit[]): RewrittenSource {
  const ascending = [...edits].sort((a, b) => a.at - b.at);
  let text = '';
  let from = 0;
  // Pieces of the rewritten text: [start in rewritten, start in original, length, copied (else inserted)].
  const pieces: Array<[number, number, number, boolean]> = [];
  for (const edit of ascending) {
    pieces.push([text.length, from, edit.at - from, true]);
    text += source.slice(from, edit.at);
    pieces.push([text.length, edit.at, edit.insert.length, false]);
    text += edit.insert;
    from = edit.at + edit.remove;
  }
  pieces.push([text.length, from, source.length - from, true]);
  text += source.slice(from);
  return {
    text,
    toOriginal: (offset) => {
      for (const [start, original, length, copied] of pieces) {
        if (offset >= start && offset < start + length) return copied ? original + (offset - start) : original;
      }
      return source.length;
    },
  };
}

export function rewriteOptionalSyntaxMapped(source: string): RewrittenSource {
  const same: RewrittenSource = { text: source, toOriginal: (offset) => offset };
  if (!source.includes('?')) return same;
  const tokens = tokenize(source);
  if (tokens === undefined) return same;
  const edits: Edit[] = [];
  const stack: Frame[] = [];
  const top = () => stack[stack.length - 1];
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t];
    const prev = tokens[t - 1];
    const next = tokens[t + 1];
    if (tok.kind !== 'punct') continue;
    switch (tok.text) {
      case '.':
        if (next?.text === '?' && tokens[t + 2]?.kind === 'ident') {
          edits.push({ at: next.start, remove: next.end - next.start, insert: '' });
          edits.push({ at: tokens[t + 2].start, remove: 0, insert: SELECT });
          t++;
        }
        break;
      case '(':
        stack.push({ open: '(', kind: 'paren', pending: false, ternaries: 0 });
        break;
      case '[':
        if (endsOperand(prev)) {
          if (next?.text === '?') {
            edits.push({ at: next.start, remove: next.end - next.start, insert: `${INDEX}(` });
            stack.push({ open: '[', kind: 'optional-index', pending: false, ternaries: 0 });
            t++;
          } else stack.push({ open: '[', kind: 'index', pending: false, ternaries: 0 });
        } else {
          const frame: Frame = { open: '[', kind: 'list', pending: false, ternaries: 0 };
          stack.push(frame);
          if (next?.text === '?') {
            edits.push({ at: next.start, remove: next.end - next.start, insert: `${ELEMENT}(` });
            frame.pending = true;
            t++;
          }
        }
        break;
      case '{': {
        const frame: Frame = { open: '{', kind: prev?.kind === 'ident' ? 'struct' : 'map', pending: false, ternaries: 0 };
        stack.push(frame);
        if (frame.kind === 'map' && next?.text === '?') {
          edits.push({ at: next.start, remove: next.end - next.start, insert: `${KEY}(` });
          frame.pending = true;
          t++;
        }
        break;
      }
      case ',': {
        const frame = top();
        if (frame === undefined) break;
        if (frame.pending) {
          edits.push({ at: tok.start, remove: 0, insert: ')' });
          frame.pending = false;
        }
        if (next?.text === '?' && (frame.kind === 'list' || frame.kind === 'map')) {
          edits.push({ at: next.start, remove: next.end - next.start, insert: `${frame.kind === 'list' ? ELEMENT : KEY}(` });
          frame.pending = true;
          frame.ternaries = 0;
          t++;
        }
        break;
      }
      case '?': {
        const frame = top();
        if (frame?.kind === 'map' && frame.pending) frame.ternaries++;
        break;
      }
      case ':': {
        const frame = top();
        if (frame?.kind === 'map' && frame.pending) {
          if (frame.ternaries > 0) frame.ternaries--;
          else {
            edits.push({ at: tok.start, remove: 0, insert: ')' });
            frame.pending = false;
          }
        }
        break;
      }
      case ')':
      case ']':
      case '}': {
        const frame = stack.pop();
        if (frame === undefined) break;
        if (frame.pending || frame.kind === 'optional-index') edits.push({ at: tok.start, remove: 0, insert: ')' });
        break;
      }
      default:
        break;
    }
  }
  if (edits.length === 0) return same;
  return mapped(source, edits);
}

function markedCall(expr: Expr | undefined, mark: string): Expr | undefined {
  if (expr?.exprKind.case !== 'callExpr') return undefined;
  const call = expr.exprKind.value;
  return call.function === mark && call.target === undefined && call.args.length === 1 ? call.args[0] : undefined;
}

function constString(id: bigint, value: string): Expr {
  return { id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value } } } } as unknown as Expr;
}

/** Turns the marks of rewriteOptionalSyntax into cel-go's optional AST, in place; returns the root. */
export function restoreOptionalSyntax(expr: Expr, depth = 0): Expr {
  if (depth > 500) return expr;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr': {
      const sel = kind.value;
      if (sel.operand) sel.operand = restoreOptionalSyntax(sel.operand, depth + 1);
      if (sel.field.startsWith(SELECT) && sel.operand) {
        const field = sel.field.slice(SELECT.length);
        return { ...expr, exprKind: { case: 'callExpr', value: { function: '_?._', args: [sel.operand, constString(expr.id, field)] } } } as unknown as Expr;
      }
      return expr;
    }
    case 'callExpr': {
      const call = kind.value;
      if (call.target) call.target = restoreOptionalSyntax(call.target, depth + 1);
      call.args = call.args.map((a) => restoreOptionalSyntax(a, depth + 1));
      if (call.function === '_[_]' && call.args.length === 2) {
        const index = markedCall(call.args[1], INDEX);
        if (index !== undefined) call.function = '_[?_]';
        if (index !== undefined) call.args = [call.args[0], index];
      }
      return expr;
    }
    case 'listExpr': {
      const list = kind.value;
      list.elements = list.elements.map((e, i) => {
        const restored = restoreOptionalSyntax(e, depth + 1);
        const inner = markedCall(restored, ELEMENT);
        if (inner === undefined) return restored;
        list.optionalIndices.push(i);
        return inner;
      });
      return expr;
    }
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.value) entry.value = restoreOptionalSyntax(entry.value, depth + 1);
        if (entry.keyKind.case === 'mapKey') {
          const key = restoreOptionalSyntax(entry.keyKind.value, depth + 1);
          const inner = markedCall(key, KEY);
          entry.keyKind = { case: 'mapKey', value: inner ?? key };
          if (inner !== undefined) entry.optionalEntry = true;
        }
      }
      return expr;
    case 'comprehensionExpr': {
      const c = kind.value;
      if (c.iterRange) c.iterRange = restoreOptionalSyntax(c.iterRange, depth + 1);
      if (c.accuInit) c.accuInit = restoreOptionalSyntax(c.accuInit, depth + 1);
      if (c.loopCondition) c.loopCondition = restoreOptionalSyntax(c.loopCondition, depth + 1);
      if (c.loopStep) c.loopStep = restoreOptionalSyntax(c.loopStep, depth + 1);
      if (c.result) c.result = restoreOptionalSyntax(c.result, depth + 1);
      return expr;
    }
    default:
      return expr;
  }
}
