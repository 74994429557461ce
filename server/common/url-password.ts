/**
 * Cutting the password out of URLs with user info (`redis://default:hunter2@redis.example:6379`) in free text, such
 * as the message of a driver's or a proxy's error that names the URL it failed to reach; the rest of the URL stays,
 * so the log still says where. The user name is kept: it is what an operator needs to tell accounts apart.
 *
 * Linear time on any text: a match can only start at `://` (no scheme is matched, so no run of letters is rescanned
 * from each of its positions); the user name cannot cross `:`, `/` or `@`, the password cannot cross `/`, and every
 * later `://` holds a `/`, so no two attempts scan the same characters. The password runs to the last `@` before the
 * host (as a URL parser reads it), so one with a raw `@` is cut whole. Neither part crosses white space or a
 * character no URL holds unencoded (`"`, `<`, `>`, `\`, …), so a URL inside JSON or markup ends where its quote does.
 */
const USERINFO = /:\/\/([^\s/?#@:"<>\\^`{|}[\]]*):[^\s/?#"<>\\^`{|}[\]]*@/g;

/** `text` with the password of every `scheme://user:password@` in it replaced by `replacement`. */
export function cutUrlPasswords(text: string, replacement: string): string {
  if (!text.includes('://')) return text;
  return text.replace(USERINFO, (_match, user: string) => `://${user}:${replacement}@`);
}
