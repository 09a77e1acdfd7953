import type { parse } from '@bufbuild/cel';

/**
 * Where cel-go's parser places each node, for the `<input>:line:column` of error messages: an
 * operator at its token (`+`, `&&`, `in`, the `?` of a conditional, the `[` of an index), a call at
 * its opening parenthesis, a selection at its dot, and every node a macro expands to at the macro
 * call's parenthesis. The parser used here records the start of each rule instead, so the places are
 * recomputed from the tokens of the source it parsed.
 */

type Expr = ReturnType<typeof parse>['expr'];

interface Token {
  text: string;
  start: number;
  kind: 'ident' | 'literal' | 'punct';
}

const PUNCT = ['==', '!=', '<=', '>=', '&&', '||', '(', ')', '[', ']', '{', '}', '.', ',', '?', ':', '+', '-', '*', '/', '%', '!', '<', '>'];

function literalEnd(source: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < source.length && /[rRbB]/.test(source[j])) {
    if (source[j] === 'r' || source[j] === 'R') raw = true;
    j++;
  }
  const quote = source[j];
  const close = source.startsWith(quote.repeat(3), j) ? quote.repeat(3) : quote;
  j += close.length;
  while (j < source.length) {
    if (!raw && source[j] === '\\') {
      j += 2;
      continue;
    }
    if (source.startsWith(close, j)) return j + close.length;
    j++;
  }
  return source.length;
}

/** CEL's tokens with their offsets; whatever is not understood becomes a one-character token. */
function tokenize(source: string): Token[] {
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
    if (c === '"' || c === "'" || /^[rRbB]{1,2}['"]/.test(source.slice(i, i + 3))) {
      const end = literalEnd(source, i);
      tokens.push({ text: source.slice(i, end), start: i, kind: 'literal' });
      i = end;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 512));
    if (ident) {
      tokens.push({ text: ident[0], start: i, kind: 'ident' });
      i += ident[0].length;
      continue;
    }
    const number = /^(?:0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?|\.\d+(?:[eE][+-]?\d+)?)/.exec(source.slice(i, i + 512));
    if (number && !(c === '.' && tokens.length > 0 && tokens[tokens.length - 1].kind !== 'punct')) {
      tokens.push({ text: number[0], start: i, kind: 'literal' });
      i += number[0].length;
      continue;
    }
    const punct = PUNCT.find((p) => source.startsWith(p, i)) ?? c;
    tokens.push({ text: punct, start: i, kind: 'punct' });
    i += punct.length;
  }
  return tokens;
}

const BINARY_TOKENS: Record<string, string> = {
  '_+_': '+',
  '_-_': '-',
  '_*_': '*',
  '_/_': '/',
  '_%_': '%',
  '_==_': '==',
  '_!=_': '!=',
  '_<_': '<',
  '_<=_': '<=',
  '_>_': '>',
  '_>=_': '>=',
  '@in': 'in',
  '_&&_': '&&',
  '_||_': '||',
  '_?_:_': '?',
  '_[_]': '[',
  '_[?_]': '[',
};

function children(e: Expr): Expr[] {
  const kind = e.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return kind.value.operand ? [kind.value.operand] : [];
    case 'callExpr':
      return [...(kind.value.target ? [kind.value.target] : []), ...kind.value.args];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr': {
      const out: Expr[] = [];
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') out.push(entry.keyKind.value);
        if (entry.value) out.push(entry.value);
      }
      return out;
    }
    case 'comprehensionExpr': {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x): x is Expr => x !== undefined);
    }
    default:
      return [];
  }
}

/** Code points before each UTF-16 offset: cel-go counts columns in code points. */
function codePointOffsets(text: string): (offset: number) => number {
  return (offset) => {
    let n = 0;
    for (let i = 0; i < offset && i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < offset) i++;
      n++;
    }
    return n;
  };
}

/**
 * The offset (in code points of `original`) where cel-go places each node of `ast`, parsed from
 * `parsed` (the source after the optional-syntax rewrite), whose parser recorded `positions`.
 */
export function celGoPositions(
  ast: Expr,
  parsed: string,
  positions: Readonly<Record<string, number>>,
  original: string,
  toOriginal: (offset: number) => number,
): Map<Expr, number> {
  const tokens = tokenize(parsed);
  const tokenAt = (offset: number): number => {
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid].start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const raw = (e: Expr): number | undefined => positions[String(e.id)];
  /** The `(` after `name` or `.name` at token index i: a call's (and its macro's) place. */
  const paren = (i: number): number | undefined => {
    let j = i;
    if (tokens[j]?.text === '.') j++;
    if (tokens[j]?.kind === 'ident' && tokens[j + 1]?.text === '(') return tokens[j + 1].start;
    return undefined;
  };
  const maxRaw = (e: Expr, depth = 0): number => {
    let max = raw(e) ?? -1;
    if (depth > 500) return max;
    for (const child of children(e)) max = Math.max(max, maxRaw(child, depth + 1));
    return max;
  };
  /** The first `text` token after the last token of `left`, outside any bracket opened after it. */
  const operatorAfter = (left: Expr, text: string): number | undefined => {
    let depth = 0;
    for (let i = tokenAt(maxRaw(left) + 1); i < tokens.length; i++) {
      const t = tokens[i].text;
      if (t === text && depth <= 0) return tokens[i].start;
      if (t === '(' || t === '[' || t === '{') depth++;
      else if (t === ')' || t === ']' || t === '}') depth--;
    }
    return undefined;
  };

  const out = new Map<Expr, number>();
  const codePoints = codePointOffsets(original);
  const place = (e: Expr, macroAt: number | undefined, depth: number): void => {
    if (depth > 500) return;
    const at = raw(e);
    let offset: number | undefined;
    const i = at === undefined ? -1 : tokenAt(at);
    const token = tokens[i];
    const kind = e.exprKind;
    let nextMacro = macroAt;
    const optionalSelect = kind.case === 'callExpr' && kind.value.function === '_?._';
    if (at !== undefined && macroAt !== undefined && at === macroAt) {
      // A node the macro made: cel-go places it at the macro call's parenthesis.
      offset = paren(i);
    } else if (token?.text === '.' && kind.case !== 'selectExpr' && !optionalSelect) {
      // A member call, or the outermost node of a receiver macro's expansion.
      offset = paren(i) ?? token.start;
      nextMacro = at;
    } else if (kind.case === 'comprehensionExpr') {
      offset = paren(i);
      nextMacro = at;
    } else if (kind.case === 'callExpr') {
      const name = kind.value.function;
      const operator = BINARY_TOKENS[name];
      if (operator !== undefined && kind.value.args.length >= 2 && !kind.value.target) {
        offset = operatorAfter(kind.value.args[0], operator);
      } else if (optionalSelect || name === '!_' || name === '-_') {
        offset = token?.start;
      } else {
        offset = paren(i) ?? token?.start;
      }
    } else if (kind.case === 'selectExpr' && token !== undefined && token.text !== '.') {
      // has(x.f): the presence test is placed at the macro's parenthesis.
      offset = paren(i) ?? token.start;
    } else {
      offset = token?.start;
    }
    out.set(e, codePoints(toOriginal(offset ?? at ?? 0)));
    for (const child of children(e)) place(child, nextMacro, depth + 1);
  };
  place(ast, undefined, 0);
  return out;
}
