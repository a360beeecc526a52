/** The chat's id, from the URL (`?chat=…`), or a new one written into it: a reload returns to the same chat. */
export function chatIdFromUrl(): string {
  const url = new URL(window.location.href);
  let id = url.searchParams.get('chat');
  if (!id) {
    id = crypto.randomUUID();
    url.searchParams.set('chat', id);
    window.history.replaceState(null, '', url);
  }
  return id;
}
