import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { installPacked, removeScratch, repo } from './packed-package.js';

// The README's minimal integration, run as pasted: every fenced block marked `<!-- readme-example: FILE -->` is
// written to FILE in a scratch project where `tessera-pay` is the packed package (and `express` the user's own), the
// sandbox runs as `npx tessera-pay sandbox` would run it, and the page is used as the browser would use it.
// Needs `npm run build` first.

/** The blocks marked in the README, by file name. */
export function readmeExamples(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/^<!-- readme-example: ([\w.-]+) -->\n```[a-z]*\n([\s\S]*?)^```$/gm)) {
    blocks.set(m[1]!, m[2]!);
  }
  return blocks;
}

/** A child process whose output is collected; `waitFor` resolves with the first match in its stdout. */
function start(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  return {
    child,
    output: () => out,
    errors: () => err,
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            child.stdout!.off('data', check);
            child.off('exit', exited);
            resolve(m);
          }
        };
        const exited = (code: number | null) =>
          reject(new Error(`${args.join(' ')} exited (${code}) before printing ${pattern}:\n${out}\n${err}`));
        child.stdout!.on('data', check);
        child.once('exit', exited);
        check();
      }),
  };
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    assert.fail(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
}

describe('the README example', { timeout: 300_000 }, () => {
  const examples = readmeExamples(readFileSync(join(repo, 'README.md'), 'utf8'));
  let scratch: string | undefined;
  let sandbox: ReturnType<typeof start> | undefined;
  let server: ReturnType<typeof start> | undefined;
  let sandboxUrl: string;
  let secretKey: string;
  let shopUrl: string;

  before(async () => {
    assert.ok(examples.has('server.mjs'), 'README.md has no block marked <!-- readme-example: server.mjs -->');
    // `npm install tessera-pay express`, as the README says.
    scratch = installPacked('tessera-readme-', ['express']);
    for (const [file, text] of examples) writeFileSync(join(scratch, file), text);
    // `npx tessera-pay sandbox` runs the package's bin; on a free port here, so the test never meets a running one.
    sandbox = start([join(scratch, 'node_modules/tessera-pay/bin/tessera.js'), 'sandbox', '--port', '0'], scratch, {});
    sandboxUrl = (await sandbox.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    secretKey = (await sandbox.waitFor(/Secret key: +(sk_\S+)/))[1]!;
    server = start(['server.mjs'], scratch, { PORT: '0', PROVIDER_URL: sandboxUrl });
    shopUrl = (await server.waitFor(/(http:\/\/localhost:\d+\/)/))[1]!;
  });

  after(async () => {
    await Promise.all([stop(server?.child), stop(sandbox?.child)]);
    removeScratch(scratch);
  });

  it('is short: the server and its page in about 30 lines', () => {
    const lines = examples.get('server.mjs')!.trimEnd().split('\n').length;
    assert.ok(lines <= 40, `the minimal example has ${lines} lines`);
  });

  it('serves a checkout page whose widget, config and charge make an approved charge for the server-decided amount', async () => {
    const page = await fetch(shopUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'nonce-[^']+'/);
    const html = await page.text();

    // The widget's script tag: its SRI hash is the hash of what the helper serves.
    const tag = /<script type="module" src="([^"]+)" integrity="(sha384-[^"]+)"/.exec(html);
    assert.ok(tag, html);
    const bundle = await fetch(new URL(tag[1]!, shopUrl));
    assert.equal(bundle.status, 200);
    const digest = createHash('sha384')
      .update(Buffer.from(await bundle.arrayBuffer()))
      .digest('base64');
    assert.equal(`sha384-${digest}`, tag[2]);

    // What the widget does with config-url: read the public key and the card-token URL, then tokenize the card.
    const configUrl = /<tessera-card-form config-url="([^"]+)"/.exec(html)?.[1];
    assert.ok(configUrl, html);
    const config = await json(await fetch(new URL(configUrl, shopUrl)));
    assert.equal(typeof config.publicKey, 'string');
    assert.equal(config.cardTokenUrl, `${sandboxUrl}/api2/v2/tokens/card`);
    const tokenRes = await fetch(config.cardTokenUrl as string, {
      method: 'POST',
      headers: { authorization: config.publicKey as string, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '4242424242424242', expiryMonth: 12, expiryYear: 2034, cvv: '123' }),
    });
    const token = await json(tokenRes);
    assert.match(String(token.id), /^card_tok_/, JSON.stringify(token));

    // What the page's script posts: the URL and the fields written in the page, and the token.
    const chargesUrl = /fetch\('([^']+)'/.exec(html)?.[1];
    const orderReference = /orderReference: '([^']+)'/.exec(html)?.[1];
    const email = /email: '([^']+)'/.exec(html)?.[1];
    assert.ok(chargesUrl && orderReference && email, html);
    const chargeRes = await fetch(new URL(chargesUrl, shopUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cardToken: token.id, orderReference, email }),
    });
    const answer = await json(chargeRes);
    assert.equal(chargeRes.status, 201, JSON.stringify(answer));
    assert.equal(answer.approved, true);
    assert.equal(typeof answer.message, 'string');

    // The sandbox holds the charge, for the amount the server's `orders` decided, never one the page sent.
    const [, amount, currency] = /amount: (\d+), currency: '([A-Z]{3})'/.exec(examples.get('server.mjs')!) ?? [];
    assert.ok(amount && currency, 'the example no longer prices order-1');
    const stored = await json(
      await fetch(`${sandboxUrl}/api2/v2/charges/${answer.id}`, { headers: { authorization: secretKey } }),
    );
    assert.equal(stored.id, answer.id);
    assert.equal(stored.value, Number(amount));
    assert.equal(stored.currency, currency);
    assert.ok(['Authorised', 'Captured'].includes(stored.status as string), JSON.stringify(stored));

    // onCharge ran on the server, once, before the answer.
    assert.equal(server!.output().split(`${orderReference}: ${stored.status} ${answer.id}`).length - 1, 1);
  });

  it('stops with Node’s own EADDRINUSE error when its port is taken, not a TypeError of its own', async () => {
    // Express 5, which `npm install tessera-pay express` installs, calls app.listen's callback with the error.
    const port = new URL(shopUrl).port;
    const second = start(['server.mjs'], scratch!, { PORT: port, PROVIDER_URL: sandboxUrl });
    // 'close': the process has exited and its stderr is read to the end.
    const code = await new Promise<number | null>((resolve) => second.child.once('close', resolve));
    const stderr = second.errors();
    assert.notEqual(code, 0, stderr);
    assert.match(stderr, /EADDRINUSE/);
    assert.doesNotMatch(stderr, /TypeError/);
  });

  it('refuses an order the server does not know, naming the field', async () => {
    const html = await (await fetch(shopUrl)).text();
    const chargesUrl = /fetch\('([^']+)'/.exec(html)![1]!;
    const res = await fetch(new URL(chargesUrl, shopUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cardToken: 'card_tok_unknown1', orderReference: 'order-2', email: 'ada@example.com' }),
    });
    const body = await json(res);
    assert.equal(res.status, 400);
    assert.equal(body.code, 'TESSERA_UNKNOWN_ORDER');
    assert.equal(body.field, 'orderReference');
  });
});
