/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A template tag that escapes every interpolated value unless it is already {@link Safe} HTML. */
export class Safe {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

type Part = string | number | Safe | undefined | null | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Safe) return part.html;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part as string | number);
}

/** `html\`<p>${text}</p>\``: interpolations are escaped; nested `html` results and arrays of them are kept. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Safe {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Safe(out);
}

/** Minor units to a price: 1999 → "€19.99". */
export function money(minor: number, currency = 'EUR'): string {
  return new Intl.NumberFormat('en-IE', { style: 'currency', currency }).format(minor / 100);
}

export interface LayoutOptions {
  readonly title: string;
  /** The response's CSP nonce (`res.locals.cspNonce`). */
  readonly nonce: string;
  /** Which navigation entry is current. */
  readonly current: 'shop' | 'platform' | 'sandbox';
  /** Extra tags for `<head>` (script tags carrying the nonce). */
  readonly head?: Safe;
  readonly body: Safe;
}

const NAV = [
  ['shop', '/', 'Shop'],
  ['platform', '/platform', 'Platform dashboard'],
  ['sandbox', '/sandbox', 'Sandbox console'],
] as const;

/**
 * The page shell every demo page shares: one stylesheet from 'self', scripts only with the CSP nonce, no inline
 * style or handler anywhere (the helper's CSP with Trusted Types forbids them).
 */
export function layout(o: LayoutOptions): string {
  return `<!doctype html>
${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · Tessera demo</title>
<link rel="stylesheet" href="/static/demo.css">
${o.head ?? ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<p class="brand"><span aria-hidden="true">◆</span> Tessera demo</p>
<nav aria-label="Demo sections"><ul>
${NAV.map(([key, href, label]) => html`<li><a href="${href}"${key === o.current ? new Safe(' aria-current="page"') : ''}>${label}</a></li>`)}
</ul></nav>
</header>
<main id="main">
${o.body}
</main>
<footer class="site"><p>Everything here runs on the embedded sandbox: no real card is charged.</p></footer>
</body>
</html>
`}`;
}

/** A `<script type="module">` for one of the demo's own files, with the page's nonce. */
export function pageScript(name: string, nonce: string): Safe {
  return html`<script type="module" src="/static/${name}" nonce="${nonce}"></script>`;
}
