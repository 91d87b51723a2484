/**
 * Our own token and command-line rules, kept in the generated gitleaks set's format
 * (rule-types.ts) and compiled by the same engine (maintained-rules.ts), beside it: forms
 * an attack round found the gitleaks set and our structural rules miss (issue 46 A.3).
 * Written here by hand, not generated; each has a case in policy/leak-corpus-forms.ts.
 */
import type { GeneratedRuleSet } from './rule-types.js';

export const OWN_RULES: GeneratedRuleSet = {
  source: 'terminal-mcp (services/broker/src/policy/secret-rules/own-rules.ts)',
  version: '1',
  commit: '',
  allowlists: [],
  rules: [
    {
      // httpie / xh basic auth: `http -a user:pw URL`, `--auth user:pw`, `--auth=user:pw`.
      id: 'httpie-auth',
      keywords: ['http', 'xh'],
      source: '(?<![\\w./-])(?:https?|xhs?)(?:[ \\t][^\\n|;&]{0,256}?)?[ \\t](?:-a|--auth)(?:[ \\t]+|=)["\']?[^\\s:\'"]{0,128}:([^\\s\'"]{1,256})',
      flags: '',
      allowlists: [],
    },
    {
      // `aws configure set aws_secret_access_key VALUE` (and the session token), with or
      // without a profile prefix (`profile.ci.aws_secret_access_key`).
      id: 'aws-configure-set',
      keywords: ['configure'],
      source: 'aws[ \\t]+configure[ \\t]+set[ \\t]+(?:[\\w.-]{1,64}\\.)?(?:aws_secret_access_key|aws_session_token)[ \\t]+["\']?([^\\s\'"]{1,512})',
      flags: 'i',
      allowlists: [],
    },
    {
      // Vault service, batch and recovery tokens of any length from 24 (gitleaks wants
      // 90+ for `hvs.`; an 89-character one was printed whole).
      id: 'vault-token',
      keywords: ['hvs.', 'hvb.', 'hvr.'],
      source: '(?<![A-Za-z0-9_.-])hv[sbr]\\.[A-Za-z0-9_-]{24,512}',
      flags: '',
      allowlists: [],
    },
    {
      // A Sentry DSN's key (and legacy secret) is its URL's user part.
      id: 'sentry-dsn-key',
      keywords: ['sentry'],
      source: '://([0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.-]{0,128}sentry',
      flags: 'i',
      allowlists: [],
    },
    {
      // URL userinfo with any user, the empty one too (`redis://:pw@host`), and a
      // password holding `/`, `#` or `?` (redact.ts's URL rule stops at those). Its kind
      // is that rule's (`url_password`), so a marker says the same whichever rule fired.
      id: 'url-password',
      keywords: ['://'],
      source: '(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,31}://[^\\s:/@]{0,256}:([^\\s@]{1,256})@[A-Za-z0-9[]',
      flags: '',
      allowlists: [
        {
          target: 'secret',
          // A port and a path (`http://host:8080/users/@alice`), a placeholder.
          regexes: [
            { source: '^\\d{1,5}(?:[/?#]|$)', flags: '' },
            { source: '^(?:\\*+|x+|\\$\\{?\\w+\\}?|<[^>]*>|password|pass|secret|\\[REDACTED:[a-z0-9_]+\\])$', flags: 'i' },
          ],
          stopwords: [],
        },
      ],
    },
  ],
};
