// The built script-tag bundle (dist/widget/tessera-card-form.js: Lit private to it, its `_$…` names mangled and three
// lit-html features trimmed; docs/decisions/widget.md#widget-bundle-size) on a page whose own code renders with
// another Lit, the one in node_modules. Run `npm run build` first (`npm test` does).
import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import { html, render } from 'lit';

const BUNDLE = '/dist/widget/tessera-card-form.js';

interface Card extends HTMLElement {
  updateComplete: Promise<boolean>;
  tokenize(): Promise<{ token: string }>;
}

const field = (el: Card, id: string) => el.shadowRoot!.querySelector<HTMLInputElement>(`#${id}`)!;

describe('the built bundle beside the page’s own Lit', () => {
  after(() => executeServerCommand('sandbox-reset'));

  it('renders, checks and tokenizes while the page renders lists, attributes and events with its Lit', async () => {
    const { publicKey, tokenUrl } = await (await fetch('/__sandbox.json')).json();
    const host = document.createElement('div');
    document.body.append(host);
    let clicks = 0;
    const page = (items: string[]) =>
      html`<ul>${items.map((i) => html`<li class=${i}>${i}</li>`)}</ul>
        <form><tessera-card-form locale="de" public-key=${publicKey} token-url=${tokenUrl}></tessera-card-form>
        <button type="button" @click=${() => clicks++}>${items.length}</button></form>`;
    render(page(['a', 'b']), host);
    const response = await fetch(BUNDLE);
    expect(response.ok, `${BUNDLE}: run npm run build first`).to.equal(true);
    await import(/* @vite-ignore */ BUNDLE);
    const el = host.querySelector('tessera-card-form') as Card;
    await new Promise((resolve) => el.addEventListener('tessera-ready', resolve, { once: true }));
    expect(field(el, 'number').labels![0]!.textContent).to.equal('Kartennummer');

    field(el, 'cvv').focus();
    await sendKeys({ type: '12' });
    field(el, 'cvv').blur();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('#cvv-error')!.textContent).to.equal(
      'Der Sicherheitscode muss 3–4 Ziffern haben.',
    );
    expect(field(el, 'cvv').getAttribute('aria-describedby')).to.equal('cvv-error');

    // The page's Lit re-renders around the element; the element keeps its state and its own rendering.
    render(page(['c', 'd', 'e']), host);
    expect([...host.querySelectorAll('li')].map((li) => li.className)).to.deep.equal(['c', 'd', 'e']);
    host.querySelector('button')!.click();
    expect(clicks).to.equal(1);
    expect(host.querySelector('tessera-card-form')).to.equal(el);

    field(el, 'number').focus();
    await sendKeys({ type: '4242424242424242' });
    field(el, 'expiry').focus();
    const year = String((new Date().getFullYear() + 2) % 100).padStart(2, '0');
    await sendKeys({ type: `12${year}` });
    field(el, 'cvv').focus();
    await sendKeys({ type: '3' });
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('#cvv-error')!.textContent).to.equal('');
    expect(field(el, 'number').value).to.equal('4242 4242 4242 4242');
    expect((await el.tokenize()).token).to.match(/^card_tok_/);
    host.remove();
  });
});
