// See https://svelte.dev/docs/kit/types#app.d.ts
import type { OperatorUser } from '@terminal-mcp/contract';
import type { Lang } from '$lib/i18n/index.js';

declare global {
  namespace App {
    interface Locals {
      /** The signed-in operator, or null (no cookie, invalid or expired session). */
      user: OperatorUser | null;
      /** The raw session token from the cookie, only while it is valid. */
      sessionToken: string | null;
      /** True when the broker could not be asked (so "not signed in" may be wrong). */
      brokerUnavailable: boolean;
      lang: Lang;
    }
    interface Error {
      message: string;
      id?: string;
    }
  }
}

export {};
