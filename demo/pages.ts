/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function shopPage(opts: { widgetSrc: string; integrity: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera demo shop</title>
<script type="module" src="${escapeHtml(opts.widgetSrc)}" integrity="${escapeHtml(opts.integrity)}" crossorigin="anonymous"></script>
</head>
<body>
<main>
<h1>Tessera demo shop</h1>
<form id="checkout">
<tessera-card-form></tessera-card-form>
</form>
</main>
</body>
</html>
`;
}
