/**
 * What a documented shell block asks of the project: the npm scripts it runs, the `durable-agent` commands
 * and flags it uses, the repository files it runs with tsx. Synopsis lines (`[--flag X]`, `a|b|c`, a
 * continuation line that starts with whitespace) are read as the commands they describe.
 */

/** One use found in a shell block. */
export type ShellUse =
  | { kind: 'npm-script'; script: string; line: number }
  | { kind: 'cli'; commands: string[][]; flags: string[]; line: number }
  | { kind: 'file'; path: string; line: number };

/** Words of a command line: quotes kept together (and marked), `#` comments dropped. */
export function words(line: string): { text: string; quoted: boolean }[] {
  const out: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i] as string)) i++;
    if (i >= line.length || line[i] === '#') break;
    let text = '';
    let quoted = false;
    while (i < line.length && !/\s/.test(line[i] as string)) {
      const c = line[i] as string;
      if (c === '"' || c === "'") {
        const end = line.indexOf(c, i + 1);
        text += line.slice(i + 1, end < 0 ? line.length : end);
        quoted = true;
        i = end < 0 ? line.length : end + 1;
      } else {
        text += c;
        i++;
      }
    }
    out.push({ text, quoted });
  }
  return out;
}

const ENV = /^[A-Z_][A-Z0-9_]*=/;

/** The uses of one shell block; `line` is relative to the block (0-based). */
export function shellUses(code: string): ShellUse[] {
  const uses: ShellUse[] = [];
  const lines = code.replace(/\\\n/g, ' ').split('\n');
  let lastCli: Extract<ShellUse, { kind: 'cli' }> | undefined;
  lines.forEach((raw, line) => {
    // A synopsis continuation: options of the command above.
    if (lastCli && /^\s+[[-]/.test(raw)) {
      for (const w of words(raw)) if (!w.quoted) lastCli.flags.push(...flagsOf(w.text));
      return;
    }
    lastCli = undefined;
    for (const segment of raw.split(/\s(?:&&|\|\||;|\|)\s/)) {
      const ws = words(segment);
      let k = 0;
      while (k < ws.length && ENV.test((ws[k] as { text: string }).text)) k++;
      const head = ws.slice(k).map((w) => w.text);
      if (head[0] === 'npm' && head[1] === 'run' && head[2]) uses.push({ kind: 'npm-script', script: head[2], line });
      else if (head[0] === 'npm' && (head[1] === 'start' || head[1] === 'test')) uses.push({ kind: 'npm-script', script: head[1], line });
      if ((head[0] === 'npx' && head[1] === 'tsx') || head[0] === 'tsx') {
        const file = head.find((w) => /\.(ts|js|mjs|cjs)$/.test(w));
        if (file) uses.push({ kind: 'file', path: file, line });
      }
      const at = head[0] === 'npx' ? 1 : 0;
      if (head[at] !== 'durable-agent') continue;
      const rest = ws.slice(k + at + 1);
      const commands: string[][] = [];
      const flags: string[] = [];
      let flagValueNext = false;
      for (const w of rest) {
        const t = w.text.replace(/^\[+|\]+$/g, '');
        if (!w.quoted && t.startsWith('-')) {
          flags.push(...flagsOf(t));
          flagValueNext = /^--?[\w-]+$/.test(t) && !/\]$/.test(w.text);
          continue;
        }
        // A command word: lower case letters and dashes, before any argument (or alternatives a|b|c).
        if (
          !w.quoted &&
          !flagValueNext &&
          commands.length < 2 &&
          /^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(t) &&
          (commands.length === 0 || expectsSubcommand(commands))
        ) {
          commands.push(t.split('|'));
        } else if (commands.length > 0 && !flagValueNext) {
          commands.push([]); // an argument: no further command words
        }
        flagValueNext = false;
      }
      lastCli = { kind: 'cli', commands: commands.filter((c) => c.length > 0), flags, line };
      uses.push(lastCli);
    }
  });
  return uses;
}

/** Commands whose next word is a subcommand. */
function expectsSubcommand(commands: string[][]): boolean {
  return commands.length === 1 && ['schedule', 'rules'].some((c) => (commands[0] as string[]).includes(c));
}

/** `--a=b` → `--a`; `--a|--b` → both; `-v` stays. */
function flagsOf(token: string): string[] {
  return token
    .replace(/^\[+|\]+$/g, '')
    .split('|')
    .map((f) => f.replace(/=.*$/, '').replace(/[\],…]+$/, ''))
    .filter((f) => /^--?[A-Za-z][\w-]*$/.test(f));
}
