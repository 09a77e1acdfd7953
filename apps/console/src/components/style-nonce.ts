/**
 * The page's Content-Security-Policy admits a `<style>` element only with this response's nonce. The
 * terminal (xterm.js) builds its own style elements; every one created from now on gets the nonce.
 * Only the console's own scripts run here (script-src 'self'), so only they create elements.
 */
export function nonceStyleElements(): void {
  const meta = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
  const nonce = meta?.nonce || meta?.getAttribute('nonce') || '';
  if (!nonce) return;
  const create = document.createElement.bind(document);
  document.createElement = (tagName: string, options?: ElementCreationOptions) => {
    const element = create(tagName, options);
    if (element instanceof HTMLStyleElement) element.nonce = nonce;
    return element;
  };
}
