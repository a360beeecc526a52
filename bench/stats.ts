/** Small statistics and formatting helpers for the benchmark's report. */

/** Smallest, median and largest of a non-empty sample. */
export function spread(values: readonly number[]): { min: number; median: number; max: number } {
  if (values.length === 0) throw new Error('spread of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { min: sorted[0] as number, median, max: sorted[sorted.length - 1] as number };
}

/** A number with a fixed count of decimals and thousands separators. */
export function num(value: number, decimals = 0): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Rows of cells as space-padded columns: the first left-aligned, the others right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The `p`th percentile (nearest rank) of an ascending sample; NaN when it is empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** A latency table row: label, count, p50, p90, p99 and max (ms). */
export function latencyRow(label: string, values: readonly number[]): string[] {
  const sorted = [...values].sort((a, b) => a - b);
  return [label, num(sorted.length), ...[50, 90, 99].map((p) => num(percentile(sorted, p), 1)), num(sorted.at(-1) ?? Number.NaN, 1)];
}
