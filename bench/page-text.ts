/** The text a benchmark tool returns for a page: `bytes` bytes, different every step. */
export function pageText(doc: string, step: number, bytes: number): string {
  const head = `${doc}, page ${step}: `;
  return head + 'lorem ipsum '.repeat(Math.ceil(bytes / 12)).slice(0, Math.max(0, bytes - head.length));
}
