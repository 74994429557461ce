import { request } from 'node:http';
import { type Answer, call } from '../../support/http.js';

/** One request with an explicit Host header (fetch always sends the URL's host). */
export function callWithHost(
  url: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: { ...init.headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers, text, json });
      });
    });
    req.once('error', reject);
    req.end(init.body);
  });
}

/** Form-encodes fields. */
export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Gets an access token from the sandbox (all scopes, or the ones given). */
export async function accessToken(
  sb: { url: string; credentials: { clientId: string; clientSecret: string } },
  scope?: string,
): Promise<string> {
  const fields: Record<string, string> = {
    grant_type: 'client_credentials',
    client_id: sb.credentials.clientId,
    client_secret: sb.credentials.clientSecret,
  };
  if (scope !== undefined) fields.scope = scope;
  const r = await call(`${sb.url}/connect/token`, { method: 'POST', raw: form(fields), headers: FORM });
  if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}
