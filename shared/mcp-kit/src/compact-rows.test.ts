// Guards list answers as text (issue 31): a table rendered by renderRecords reads back with parseRows to exactly its records, whatever the cells hold (tabs, newlines, quotes, strings that look like numbers or booleans, empty strings, nulls), with shared values said once; text after a blank line is not a row.
import { describe, expect, it } from 'vitest';
import { parseRows, renderRecords } from './compact-rows.js';

describe('renderRecords and parseRows', () => {
  const columns = ['name', 'n', 'flag', 'note', 'kind'];
  const records = [
    { name: 'plain', n: 1, flag: true, note: null, kind: 'same value' },
    { name: 'tab\there "quoted"', n: -2.5, flag: false, note: '', kind: 'same value' },
    { name: '42', n: 0, flag: true, note: 'true', kind: 'same value' },
    { name: 'line\nbreak', n: 1e21, flag: false, note: 'x=1 y=2', kind: 'same value' },
  ];

  it('reads back exactly the records, a shared value said once', () => {
    const text = ['3 things:', ...renderRecords(records, columns, { keep: ['name'], empty: 'None.' }), '', 'More: cursor abc.'].join('\n');
    expect(text.match(/same value/g)).toHaveLength(1);
    expect(text).toMatch(/^same in every row: kind="same value"$/m);
    expect(parseRows(text, 'name')).toEqual(records);
  });

  it('says the empty line for no records, and parseRows refuses text without its table', () => {
    expect(renderRecords([], columns, { empty: 'None.' })).toEqual(['None.']);
    expect(() => parseRows('None.', 'name')).toThrow(/no table/);
  });

  it('never folds a kept column, nor anything of a single row', () => {
    const one = renderRecords([records[0]!], columns, { keep: ['name'], empty: '' });
    expect(one[0]).toBe(columns.join('\t'));
    const twins = renderRecords([{ name: 'a', n: 1 }, { name: 'a', n: 2 }], ['name', 'n'], { keep: ['name'], empty: '' });
    expect(twins).toEqual(['name\tn', 'a\t1', 'a\t2']);
  });
});
