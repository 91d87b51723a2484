/** `--help` and `--version` for every service command, answered before anything starts
 * (no socket, no port, no state directory). String work only: the bin prints the text and
 * exits with the code. A service takes its settings from the environment, so any other
 * argument is refused rather than silently ignored. */

export interface ServiceCommand {
  name: string;
  version: string;
  /** One paragraph: what it does and the environment variables it reads. */
  summary: string;
}

export interface CliFlagAnswer {
  text: string;
  /** 'stdout' for an answer (exit 0), 'stderr' for a refusal (exit 2). */
  stream: 'stdout' | 'stderr';
  exitCode: 0 | 2;
}

export function helpText(cmd: ServiceCommand): string {
  return `usage: ${cmd.name} [--help | --version]\n\n${cmd.summary.trim()}\n`;
}

/** What to answer for these arguments, or undefined when there are none (start normally). */
export function serviceCommandFlags(argv: readonly string[], cmd: ServiceCommand): CliFlagAnswer | undefined {
  if (argv.length === 0) return undefined;
  const [first] = argv;
  if (argv.length === 1 && (first === '--help' || first === '-h' || first === 'help')) return { text: helpText(cmd), stream: 'stdout', exitCode: 0 };
  if (argv.length === 1 && (first === '--version' || first === '-V')) return { text: `${cmd.name} ${cmd.version}\n`, stream: 'stdout', exitCode: 0 };
  return {
    text: `${cmd.name}: unexpected argument ${JSON.stringify(String(first).slice(0, 40))}; settings come from TERMINAL_MCP_* environment variables (see --help)\n`,
    stream: 'stderr',
    exitCode: 2,
  };
}
