/**
 * A stand-in for an agent CLI at its usage limit, for the park/resume tests: a Python
 * script that prints Claude Code's session-limit message with each reset label it is given
 * in turn, reads a line of input after each, and records every line it reads in a log file
 * (its last argument). Run it as `python3 <file> <label>... <log>`.
 */

/** The script's text; `afterLast` is printed once the labels run out (e.g. "working again"). */
export function limitStandInScript(afterLast?: string): string {
  return [
    'import sys',
    'labels, log = sys.argv[1:-1], sys.argv[-1]',
    'def record(line):',
    '    with open(log, "a") as f:',
    '        f.write(line)',
    'for label in labels:',
    '    print("\\u23fa You\'ve hit your session limit \\u00b7 resets " + label + " (UTC)")',
    '    print("/upgrade to increase your usage limit.", flush=True)',
    '    record(sys.stdin.readline())',
    ...(afterLast === undefined ? [] : [`print(${JSON.stringify(afterLast)}, flush=True)`]),
    'while True:',
    '    record(sys.stdin.readline())',
  ].join('\n');
}

/** `4:20pm`: the UTC wall clock at `ms` as Claude Code prints a reset. */
export function resetLabel(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  return `${h % 12 === 0 ? 12 : h % 12}:${String(d.getUTCMinutes()).padStart(2, '0')}${h < 12 ? 'am' : 'pm'}`;
}
