/** Plain-text tables for the terminal: a header row, a rule, and columns padded to their widths. */

/** How a column's cells line up. */
export type Align = 'left' | 'right';

/** One column of a {@link formatTable} table. */
export interface Column {
  header: string;
  /** Numbers read best right-aligned. Default left. */
  align?: Align;
}

/** Characters a cell takes on screen (ANSI colour codes take none). */
function width(text: string): number {
  // eslint-disable-next-line no-control-regex -- ANSI escape sequences
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

function padCell(text: string, w: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, w - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * The lines of a table: headers, a rule of `-`, then one line per row (trailing spaces trimmed).
 *
 * @example
 * ```ts
 * formatTable([{ header: 'step', align: 'right' }, { header: 'model' }], [['1', 'scripted/a']]);
 * // ['step  model', '----  ----------', '   1  scripted/a']
 * ```
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths = columns.map((c, i) => Math.max(width(c.header), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    (indent + columns.map((c, i) => padCell(cells[i] ?? '', widths[i] as number, c.align ?? 'left')).join('  ')).trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
