/**
 * A small arithmetic evaluator (recursive descent): `+ - * / ^`, parentheses, decimals and unary minus.
 *
 * Grammar, loosest first:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?        (right-associative; -2^2 = -(2^2))
 *   primary := number | '(' expr ')'
 */

/** A syntax or arithmetic error, with the 0-based position in the input where it was found. */
export class CalculatorError extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(message);
    this.name = 'CalculatorError';
    this.position = position;
  }
}

type Token = { kind: 'num'; value: number; pos: number } | { kind: 'op'; op: string; pos: number } | { kind: 'end'; pos: number };

const OPS = new Set(['+', '-', '*', '/', '^', '(', ')']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (OPS.has(c)) {
      tokens.push({ kind: 'op', op: c, pos: i });
      i++;
      continue;
    }
    const m = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(input.slice(i));
    if (m) {
      tokens.push({ kind: 'num', value: Number(m[0]), pos: i });
      i += m[0].length;
      continue;
    }
    throw new CalculatorError(`unexpected character "${c}" at position ${i + 1}`, i);
  }
  tokens.push({ kind: 'end', pos: input.length });
  return tokens;
}

function describe(t: Token): string {
  if (t.kind === 'end') return 'end of expression';
  if (t.kind === 'num') return `number ${t.value}`;
  return `"${t.op}"`;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private isOp(op: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.op === op;
  }

  parse(): number {
    const value = this.expr();
    const t = this.peek();
    if (t.kind !== 'end') throw new CalculatorError(`unexpected ${describe(t)} at position ${t.pos + 1}`, t.pos);
    return value;
  }

  private expr(): number {
    let value = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.tokens[this.i++] as { op: string }).op;
      const right = this.term();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }

  private term(): number {
    let value = this.unary();
    while (this.isOp('*') || this.isOp('/')) {
      const t = this.tokens[this.i++] as { op: string; pos: number };
      const right = this.unary();
      if (t.op === '/' && right === 0) throw new CalculatorError(`division by zero at position ${t.pos + 1}`, t.pos);
      value = t.op === '*' ? value * right : value / right;
    }
    return value;
  }

  private unary(): number {
    if (this.isOp('-')) {
      this.i++;
      return -this.unary();
    }
    if (this.isOp('+')) {
      this.i++;
      return this.unary();
    }
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    if (this.isOp('^')) {
      this.i++;
      return Math.pow(base, this.unary());
    }
    return base;
  }

  private primary(): number {
    const t = this.peek();
    if (t.kind === 'num') {
      this.i++;
      return t.value;
    }
    if (t.kind === 'op' && t.op === '(') {
      this.i++;
      const value = this.expr();
      const close = this.peek();
      if (!(close.kind === 'op' && close.op === ')')) {
        throw new CalculatorError(`missing ")" for the "(" at position ${t.pos + 1}`, close.pos);
      }
      this.i++;
      return value;
    }
    throw new CalculatorError(`expected a number or "(" but found ${describe(t)} at position ${t.pos + 1}`, t.pos);
  }
}

/**
 * Evaluate an arithmetic expression. The result is rounded to 15 significant digits, so binary
 * floating-point noise does not show (`0.1+0.2` is `0.3`). Throws {@link CalculatorError} on bad
 * input, division by zero or a result that is not a finite number.
 */
export function evaluate(expression: string): number {
  if (!expression.trim()) throw new CalculatorError('empty expression', 0);
  const value = new Parser(tokenize(expression)).parse();
  if (!Number.isFinite(value)) throw new CalculatorError('the result is not a finite number', 0);
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? 0 : rounded;
}
