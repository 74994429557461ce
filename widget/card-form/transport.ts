/**
 * The widget's network code: the helper's `/config`, the provider's card-token request, and what their answers
 * mean for the shopper and the page. Every failure is thrown as a {@link Failure}, which the element shows and
 * dispatches as `tessera-error`. No DOM beyond `fetch` and `document.baseURI`.
 */
import type { Brand } from '../../shared/card/brands.js';
import { secureUrl } from '../../shared/url.js';
import type { Strings } from '../i18n/strings.js';
import type { CardErrorDetail, CardField, ConfigReason } from './events.js';
import { FIELDS, refusedMessage } from './messages.js';

/** What the helper's `/config` answers (server/helper); anything else is ignored. */
export interface RemoteConfig {
  publicKey?: unknown;
  cardTokenUrl?: unknown;
}

/** The parts of the token endpoint's answer the widget reads; anything else is ignored. */
interface Answer {
  id?: unknown;
  card?: { last4?: unknown; bin?: unknown };
  errorCode?: unknown;
  requestId?: unknown;
  errors?: { field?: unknown }[];
}

/**
 * A failure: the `tessera-error` detail (its undefined entries are dropped), and for a misconfiguration in sandbox
 * mode the console hint, warned once as `TESSERA_<REASON>: <hint>` (docs/decisions/widget.md#widget-config-errors).
 */
export type Failure = Pick<CardErrorDetail, 'code' | 'message'> & {
  [K in Exclude<keyof CardErrorDetail, 'code' | 'message'>]?: CardErrorDetail[K] | undefined;
} & { hint?: string | undefined };

/** Where and how to ask for a token: the public key and the token URL. */
export type Endpoint = readonly [key: string, url: URL];

/** `value` if it is a string (answers are read defensively: nothing else reaches an event). */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A misconfiguration, with the console hint in sandbox mode: a sandbox key (`pk_sbox_…`; the helper refuses one in
 * production, so its config's `environment` says the same) or no key at all (nothing shows the page is live).
 */
const misconfigured = (
  s: Strings,
  key: string,
  reason: ConfigReason,
  hint: string,
  url?: string,
  status?: number,
): Failure => ({
  code: 'config',
  reason,
  message: s.unavailable,
  url,
  status,
  hint: !key || key.includes('_sbox_') ? hint : undefined,
});

/**
 * A URL that answered the wrong thing; the hint says what: `http://…/config answered 404 text/html` (or
 * `answered 404 with no Content-Type`).
 */
const wrongAnswer = (s: Strings, key: string, reason: ConfigReason, url: URL, r: Response) =>
  misconfigured(
    s,
    key,
    reason,
    `${url} answered ${r.status} ${r.headers.get('content-type') ?? 'with no Content-Type'}`,
    url.href,
    r.status,
  );

/** How long a config or token request may take, body included, before it is a network failure. */
const TIMEOUT_MS = 30_000;

/** Fetches `url`: the response and its JSON (undefined when the body is not JSON); unreachable is a network failure. */
async function call(url: URL, init: RequestInit, s: Strings): Promise<[Response, unknown]> {
  let response: Response;
  try {
    // Never followed: a redirect would carry the card to a URL that was never checked. Bounded, so a stalled
    // connection cannot hold the form (and every later submit) forever.
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw { code: 'network', message: s.network } satisfies Failure;
  }
  return [response, await response.json().catch(() => undefined)];
}

/**
 * The helper's config from `configUrl`. A URL that answers anything but a JSON object (a 404 page, the site's HTML
 * because the helper is mounted elsewhere) is `config_unavailable`; an unreachable one is a network failure.
 */
export async function loadConfig(configUrl: string, key: string, s: Strings): Promise<RemoteConfig> {
  const url = secureUrl(configUrl, document.baseURI);
  if (!url) throw misconfigured(s, key, 'insecure_url', configUrl, configUrl);
  const [response, config] = await call(url, { credentials: 'same-origin' }, s);
  if (response.ok && config && typeof config === 'object') return config;
  throw wrongAnswer(s, key, 'config_unavailable', url, response);
}

/** The public key and token URL from the properties, else from the helper's config. */
export function endpoint(publicKey: string, tokenUrl: string, config: RemoteConfig | undefined, s: Strings): Endpoint {
  const key = publicKey || str(config?.publicKey) || '';
  const url = tokenUrl || str(config?.cardTokenUrl);
  if (!key) throw misconfigured(s, key, 'no_public_key', 'set public-key or config-url');
  const safe = url && secureUrl(url, document.baseURI);
  if (!safe) {
    throw url
      ? misconfigured(s, key, 'insecure_url', url, url)
      : misconfigured(s, key, 'no_token_url', 'set token-url or config-url');
  }
  return [key, safe];
}

/** The token endpoint's answer to a card it accepted. */
export interface TokenAnswer {
  readonly id: string;
  readonly card: { readonly last4?: unknown; readonly bin?: unknown };
}

/**
 * Posts the card to the token endpoint; resolves with the token's id and card facts. A provider's refusal is
 * mapped to a field where it names one (docs/decisions/widget.md#widget-errors); an answer that cannot come from the
 * token endpoint (a 404 or 405, a page that is not JSON, a 2xx without a token) is `token_endpoint_invalid`.
 */
export async function requestToken(
  [key, url]: Endpoint,
  body: string,
  s: Strings,
  brand: Brand | undefined,
): Promise<TokenAnswer> {
  const [response, json] = await call(
    url,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: key },
      body,
      credentials: 'omit',
      referrerPolicy: 'origin',
    },
    s,
  );
  const answer = json as Answer | undefined;
  const { ok, status } = response;
  if (ok && str(answer?.id)?.startsWith('card_tok_') && answer?.card) return answer as TokenAnswer;
  if (status < 500 && (ok || !answer || status === 404 || status === 405)) {
    throw wrongAnswer(s, key, 'token_endpoint_invalid', url, response);
  }
  const rejected = str(answer?.errors?.[0]?.field) ?? '';
  const field = (/^expiry/.test(rejected) ? 'expiry' : FIELDS.find((f) => f === rejected)) as CardField | undefined;
  throw {
    code: 'provider',
    message: field
      ? refusedMessage(s, field, brand)
      : status >= 400 && status < 500 && status !== 401 && status !== 403
        ? s.declined
        : s.unavailable,
    status,
    field,
    providerCode: str(answer?.errorCode),
    requestId: str(answer?.requestId),
  } satisfies Failure;
}
