// `npx cem analyze --litelement`: the widget's public surface, written to custom-elements.json.
export default {
  globs: ['widget/card-form/*.ts'],
  // The element's internal modules (rules' messages, network code, console warnings) are no public surface.
  exclude: [
    '**/*.test.ts',
    'widget/card-form/*.styles.ts',
    'widget/card-form/messages.ts',
    'widget/card-form/transport.ts',
    'widget/card-form/warn.ts',
  ],
  outdir: '.',
  litelement: true,
  plugins: [
    {
      // The analyzer also guesses event names from `dispatchEvent(new SomeEvent(x))` calls (it reads the
      // argument's name); the documented `@fires` tags are the real list.
      name: 'tessera-documented-events-only',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            if (declaration.events) {
              declaration.events = declaration.events.filter((e) => /^(tessera-[a-z-]+|change)$/.test(e.name ?? ''));
            }
          }
        }
      },
    },
  ],
};
