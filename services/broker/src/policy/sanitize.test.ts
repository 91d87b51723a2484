// Guards terminal text sanitizing: every escape sequence and control character is removed (7-bit and 8-bit forms, unterminated strings), newline and tab kept, CR dropped.
import { describe, expect, it } from 'vitest';
import { splitLines, stripTerminalControls, trimTrailingBlankLines } from './sanitize.js';

const ESC = '\x1b';

describe('stripTerminalControls', () => {
  it.each([
    ['plain text', 'hello world', 'hello world'],
    ['newline and tab kept', 'a\tb\nc', 'a\tb\nc'],
    ['CRLF becomes LF', 'a\r\nb\r\n', 'a\nb\n'],
    ['lone CR removed', 'progress 10%\rprogress 20%', 'progress 10%progress 20%'],
    ['SGR colour', `${ESC}[1;31mred${ESC}[0m`, 'red'],
    ['SGR 256/truecolour', `${ESC}[38;5;196ma${ESC}[48;2;1;2;3mb${ESC}[m`, 'ab'],
    ['cursor movement and erase', `${ESC}[2J${ESC}[H${ESC}[10;20Hx${ESC}[K`, 'x'],
    ['CSI private params (bracketed paste on/off)', `${ESC}[?2004hprompt${ESC}[?2004l`, 'prompt'],
    ['bracketed paste end marker', `a${ESC}[201~b`, 'ab'],
    ['CSI with intermediate byte', `${ESC}[0 qx`, 'x'],
    ['CSI with > and = markers', `${ESC}[>0c${ESC}[=1ux`, 'x'],
    ['OSC title terminated by BEL', `${ESC}]0;my title\x07text`, 'text'],
    ['OSC terminated by ST', `${ESC}]2;title${ESC}\\text`, 'text'],
    ['OSC 8 hyperlink', `${ESC}]8;;https://example.com${ESC}\\link${ESC}]8;;${ESC}\\`, 'link'],
    ['OSC 52 clipboard write', `${ESC}]52;c;aGVsbG8=\x07ok`, 'ok'],
    ['OSC ended by a new ESC sequence', `${ESC}]0;title${ESC}[31mred`, 'red'],
    ['unterminated OSC swallows the rest', `before${ESC}]0;never ends`, 'before'],
    ['DCS string', `${ESC}Pq#0;2;0;0;0#1!14@${ESC}\\after`, 'after'],
    ['DCS tmux passthrough', `${ESC}Ptmux;${ESC}${ESC}]0;x\x07${ESC}\\y`, 'y'],
    ['SOS string', `${ESC}Xhidden${ESC}\\shown`, 'shown'],
    ['PM string', `${ESC}^hidden${ESC}\\shown`, 'shown'],
    ['APC string', `${ESC}_hidden${ESC}\\shown`, 'shown'],
    ['string aborted by CAN', `${ESC}]0;title\x18shown`, 'shown'],
    ['two-char ESC sequences', `${ESC}7a${ESC}8b${ESC}=c${ESC}>d${ESC}Me${ESC}c`, 'abcde'],
    ['charset designation ESC ( B', `${ESC}(Bx${ESC})0y`, 'xy'],
    ['DEC line ESC # 8', `${ESC}#8z`, 'z'],
    ['lone ESC at the end', `abc${ESC}`, 'abc'],
    ['ESC followed by newline', `a${ESC}\nb`, 'a\nb'],
    ['truncated CSI at the end', `abc${ESC}[12;3`, 'abc'],
    ['CSI interrupted by a newline', `a${ESC}[12\nb`, 'a\nb'],
    ['8-bit CSI 0x9B', 'a\x9b31mb', 'ab'],
    ['8-bit OSC 0x9D ... ST 0x9C', 'a\x9d0;title\x9cb', 'ab'],
    ['8-bit DCS 0x90 ... BEL', 'a\x90data\x07b', 'ab'],
    ['8-bit APC 0x9F', 'a\x9fx\x9cb', 'ab'],
    ['other C1 controls', 'a\x85b\x8dc\x80d', 'abcd'],
    ['C0 controls', 'a\x00b\x07c\x08d\x0be\x0cf\x1fg', 'abcdefg'],
    ['DEL', 'a\x7fb', 'ab'],
    ['unicode kept', 'héllo ✻ ❯ 🙂 ─', 'héllo ✻ ❯ 🙂 ─'],
    ['latin-1 range above C1 kept', 'café £ ©', 'café £ ©'],
  ])('%s', (_name, input, expected) => {
    expect(stripTerminalControls(input)).toBe(expected);
  });

  it('leaves nothing that starts a sequence in mixed hostile input', () => {
    const hostile = `${ESC}[31m${ESC}]0;t\x07${ESC}P${ESC}\\x\x9b1m\x9dq\x07${ESC}[?1049h${ESC}`;
    const out = stripTerminalControls(hostile.repeat(100));
    expect(out).toBe('x'.repeat(100));
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it('is linear on 200 KB of escape soup', () => {
    const input = `${ESC}[${'1;'.repeat(100_000)}`;
    const started = performance.now();
    expect(stripTerminalControls(input)).toBe('');
    expect(stripTerminalControls(`${ESC}]`.repeat(100_000))).toBe('');
    expect(stripTerminalControls(`${ESC}[`.repeat(100_000))).toBe('');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('splitLines and trimTrailingBlankLines', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    ['a\n', ['a']],
    ['a\nb', ['a', 'b']],
    ['a\n\nb\n', ['a', '', 'b']],
    ['\n', ['']],
  ])('splitLines(%j)', (text, expected) => {
    expect(splitLines(text)).toEqual(expected);
  });

  it.each([
    [['$ ls', 'a', '', '   ', ''], ['$ ls', 'a']],
    [['', 'x', '', 'y'], ['', 'x', '', 'y']],
    [['', '  ', '\t'], []],
    [[], []],
  ])('trimTrailingBlankLines(%j)', (lines, expected) => {
    expect(trimTrailingBlankLines(lines)).toEqual(expected);
  });
});
