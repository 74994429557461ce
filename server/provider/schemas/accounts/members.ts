// Account Services API schemas: Members (beta, hosted onboarding).
import { z } from 'zod';
import { idOf } from './common.js';

export const memberSchema = z.object({ user_id: idOf('usr_') });
export type Member = z.infer<typeof memberSchema>;
export const membersListSchema = z.object({ data: z.array(memberSchema) });
export type MembersList = z.infer<typeof membersListSchema>;
/** PUT …/members/{userId}: a JSON object; no field is needed to resend (docs/decisions/sandbox.md#members). */
export const reinviteRequestSchema = z.object({});
export type ReinviteRequest = z.infer<typeof reinviteRequestSchema>;
export const reinviteResponseSchema = z.object({ id: idOf('usr_') });
export type ReinviteResponse = z.infer<typeof reinviteResponseSchema>;
