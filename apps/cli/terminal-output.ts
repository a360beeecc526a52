/** Where the CLI writes: plain text without ANSI codes unless stdout is a terminal, or JSON only. */

/** Text styles; identity functions when colour is off. */
export interface Styles {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

/** Styles for a stream: colour only on a terminal, and never with `NO_COLOR` or `TERM=dumb`. */
export function stylesFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Styles {
  const color = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  if (!color) return { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };
  return { bold: ansi(1, 22), dim: ansi(2, 22), green: ansi(32, 39), red: ansi(31, 39), yellow: ansi(33, 39), cyan: ansi(36, 39) };
}

const closed = new WeakSet<object>();
const guarded = new WeakSet<object>();

/** Stop writing to `stream` once its reader has gone (EPIPE, e.g. `| head`) instead of crashing. */
function guard(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed.add(stream);
    else throw err;
  });
}

/** The CLI's standard output. In JSON mode only {@link Output.json} writes anything. */
export class Output {
  readonly styles: Styles;

  constructor(
    readonly jsonMode = false,
    /** Where it writes (a spinner writes there too). */
    readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number } = process.stdout,
  ) {
    this.styles = stylesFor(stream);
    guard(stream);
  }

  private write(text: string): void {
    if (!closed.has(this.stream)) this.stream.write(text);
  }

  /** Print lines of human output. */
  line(...lines: string[]): void {
    if (this.jsonMode) return;
    this.write((lines.length ? lines : ['']).join('\n') + '\n');
  }

  /** Write human text as it is, without a line end (e.g. text streaming in). */
  text(raw: string): void {
    if (!this.jsonMode) this.write(raw);
  }

  /** Print a value as JSON on one line (JSON mode only): one record of a JSON-lines stream. */
  jsonLine(value: unknown): void {
    if (this.jsonMode) this.write(JSON.stringify(value) + '\n');
  }

  /** Print a dimmed note. */
  note(text: string): void {
    this.line(this.styles.dim(text));
  }

  /** Print a value as JSON (JSON mode only). */
  json(value: unknown): void {
    if (this.jsonMode) this.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** Resolves once everything written so far has been flushed. */
  flush(): Promise<void> {
    if (closed.has(this.stream)) return Promise.resolve();
    return new Promise((resolve) => this.stream.write('', () => resolve()));
  }
}
