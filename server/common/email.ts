/**
 * The WHATWG "valid e-mail address" (the rule of `<input type=email>`):
 * `1*( atext / "." ) "@" label *( "." label )`, a label being 1–63 letters, digits or hyphens that neither
 * starts nor ends with a hyphen. So `a@b.c` and `a@localhost` are valid, `a@b..c` and `a@-b.c` are not.
 * docs/decisions/helper.md#helper-email. Linear: the local part cannot hold `@`, labels are split by `.` which they cannot hold, and the only
 * overlap (a label's middle and its last character) is bounded by 61.
 */
export const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** True for a valid e-mail address of at most 254 characters. */
export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL.test(value);
