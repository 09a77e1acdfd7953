import { fieldErrorsMessage } from './field-errors';
import { FieldPath } from './field-path';
import { LABEL_BINARY_OPERATORS, labelKeyError, LabelRequirement, SelectionOperator, validateLabelRequirement } from './label-requirement';
import { newBadRequest } from './status-errors';

/*
 * A port of Kubernetes' label selector lexer and recursive-descent parser, so that the same
 * strings are accepted and rejected with the same messages:
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 */

enum Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const STRING_TO_TOKEN: ReadonlyMap<string, Token> = new Map([
  [')', Token.ClosedPar],
  [',', Token.Comma],
  ['!', Token.DoesNotExist],
  ['==', Token.DoubleEquals],
  ['=', Token.Equals],
  ['>', Token.GreaterThan],
  ['in', Token.In],
  ['<', Token.LessThan],
  ['!=', Token.NotEquals],
  ['notin', Token.NotIn],
  ['(', Token.OpenPar],
]);

interface Scanned {
  tok: Token;
  lit: string;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';
}

class Lexer {
  private pos = 0;

  constructor(private readonly s: string) {}

  lex(): Scanned {
    while (this.pos < this.s.length && isWhitespace(this.s[this.pos])) this.pos++;
    if (this.pos >= this.s.length) return { tok: Token.EndOfString, lit: '' };
    return isSpecialSymbol(this.s[this.pos]) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }

  private scanIdOrKeyword(): Scanned {
    const start = this.pos;
    while (this.pos < this.s.length && !isSpecialSymbol(this.s[this.pos]) && !isWhitespace(this.s[this.pos])) this.pos++;
    const lit = this.s.slice(start, this.pos);
    return { tok: STRING_TO_TOKEN.get(lit) ?? Token.Identifier, lit };
  }

  /** Longest run of special symbols that still forms a token (`!=` rather than `!`). */
  private scanSpecialSymbol(): Scanned {
    let last: Scanned | undefined;
    let buffer = '';
    while (this.pos < this.s.length && isSpecialSymbol(this.s[this.pos])) {
      buffer += this.s[this.pos];
      const tok = STRING_TO_TOKEN.get(buffer);
      if (tok !== undefined) {
        last = { tok, lit: buffer };
        this.pos++;
      } else if (last) {
        break;
      } else {
        this.pos++;
      }
    }
    return last ?? { tok: Token.Error, lit: `error expected: keyword found '${buffer}'` };
  }
}

enum Context {
  KeyAndOperator,
  Values,
}

class SelectorSyntaxError extends Error {}

class Parser {
  private readonly items: Scanned[] = [];
  private position = 0;

  constructor(
    input: string,
    private readonly path: FieldPath | undefined,
  ) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === Token.EndOfString) break;
    }
  }

  private lookahead(context: Context): Scanned {
    return this.adjust(this.items[this.position], context);
  }

  private consume(context: Context): Scanned {
    return this.adjust(this.items[this.position++], context);
  }

  /** In value position the keywords `in` and `notin` are ordinary identifiers. */
  private adjust(item: Scanned, context: Context): Scanned {
    if (context === Context.Values && (item.tok === Token.In || item.tok === Token.NotIn)) {
      return { tok: Token.Identifier, lit: item.lit };
    }
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(Context.Values);
      switch (tok) {
        case Token.Identifier:
        case Token.DoesNotExist: {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (err) {
            if (err instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${err.message}`);
            throw err;
          }
          requirements.push(r);
          const next = this.consume(Context.Values);
          switch (next.tok) {
            case Token.EndOfString:
              return requirements;
            case Token.Comma: {
              const after = this.lookahead(Context.Values);
              if (after.tok !== Token.Identifier && after.tok !== Token.DoesNotExist) {
                throw new SelectorSyntaxError(`found '${after.lit}', expected: identifier after ','`);
              }
              break;
            }
            default:
              throw new SelectorSyntaxError(`found '${next.lit}', expected: ',' or 'end of string'`);
          }
          break;
        }
        case Token.EndOfString:
          return requirements;
        default:
          throw new SelectorSyntaxError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === 'exists' || inferred === '!') return this.newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.newRequirement(key, operator, [...values].sort());
  }

  private newRequirement(key: string, operator: SelectionOperator, values: string[]): LabelRequirement {
    const errs = validateLabelRequirement(key, operator, values, this.path);
    if (errs.length > 0) throw new SelectorSyntaxError(fieldErrorsMessage(errs));
    return LabelRequirement.unchecked(key, operator, values);
  }

  private parseKeyAndInferOperator(): [string, SelectionOperator | undefined] {
    let operator: SelectionOperator | undefined;
    let { tok, lit } = this.consume(Context.Values);
    if (tok === Token.DoesNotExist) {
      operator = '!';
      ({ tok, lit } = this.consume(Context.Values));
    }
    if (tok !== Token.Identifier) throw new SelectorSyntaxError(`found '${lit}', expected: identifier`);
    // Kubernetes validates the bare key against a nil path here, which prints as "<nil>".
    const keyErr = labelKeyError(lit, this.path ? this.path.toString() : '<nil>');
    if (keyErr) throw new SelectorSyntaxError(fieldErrorsMessage([keyErr]));
    const next = this.lookahead(Context.Values).tok;
    if ((next === Token.EndOfString || next === Token.Comma) && operator !== '!') operator = 'exists';
    return [lit, operator];
  }

  private parseOperator(): SelectionOperator {
    const { tok, lit } = this.consume(Context.KeyAndOperator);
    switch (tok) {
      case Token.In:
        return 'in';
      case Token.Equals:
        return '=';
      case Token.DoubleEquals:
        return '==';
      case Token.GreaterThan:
        return 'gt';
      case Token.LessThan:
        return 'lt';
      case Token.NotIn:
        return 'notin';
      case Token.NotEquals:
        return '!=';
      default:
        throw new SelectorSyntaxError(`found '${lit}', expected: ${LABEL_BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(Context.Values);
    if (open.tok !== Token.OpenPar) throw new SelectorSyntaxError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(Context.Values);
    switch (tok) {
      case Token.Identifier:
      case Token.Comma: {
        const values = this.parseIdentifiersList();
        if (this.consume(Context.Values).tok !== Token.ClosedPar) {
          throw new SelectorSyntaxError(`found '${lit}', expected: ')'`);
        }
        return values;
      }
      case Token.ClosedPar:
        this.consume(Context.Values);
        return new Set(['']);
      default:
        throw new SelectorSyntaxError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  /** A comma-separated list in which empty entries stand for the empty value. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(Context.Values);
      switch (tok) {
        case Token.Identifier: {
          values.add(lit);
          const next = this.lookahead(Context.Values);
          if (next.tok === Token.Comma) continue;
          if (next.tok === Token.ClosedPar) return values;
          throw new SelectorSyntaxError(`found '${next.lit}', expected: ',' or ')'`);
        }
        case Token.Comma: {
          if (values.size === 0) values.add('');
          const next = this.lookahead(Context.Values).tok;
          if (next === Token.ClosedPar) {
            values.add('');
            return values;
          }
          if (next === Token.Comma) {
            this.consume(Context.Values);
            values.add('');
          }
          break;
        }
        default:
          throw new SelectorSyntaxError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(Context.Values).tok;
    if (next === Token.EndOfString || next === Token.Comma) return new Set(['']);
    const { tok, lit } = this.consume(Context.Values);
    if (tok === Token.Identifier) return new Set([lit]);
    throw new SelectorSyntaxError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses a label selector string into requirements sorted by key. Throws a 400 BadRequest with
 * Kubernetes' message for malformed input. The empty string yields no requirements.
 */
export function parseLabelRequirements(selector: string, path?: FieldPath): LabelRequirement[] {
  let items: LabelRequirement[];
  try {
    items = new Parser(selector, path).parse();
  } catch (err) {
    if (err instanceof SelectorSyntaxError) throw newBadRequest(err.message);
    throw err;
  }
  return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
