/**
 * A pane program for input tests: puts its terminal in raw mode (nothing echoed or
 * interpreted), touches a ready file, and appends every byte the terminal delivers to an
 * output file. Run as `python3 <script> <output file> <ready file>`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RAW_READER = 'import os, sys, tty\ntty.setraw(0)\nout = open(sys.argv[1], "ab", buffering=0)\nopen(sys.argv[2], "w").close()\nwhile True:\n    b = os.read(0, 65536)\n    if not b:\n        break\n    out.write(b)\n';

/** Writes the script into `dir`; returns its path. */
export function writeRawReader(dir: string): string {
  const path = join(dir, 'raw_reader.py');
  writeFileSync(path, RAW_READER);
  return path;
}
