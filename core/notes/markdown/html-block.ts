/** CommonMark's seven kinds of HTML block: how each starts and ends. */

const RAW = /^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i;
const BLOCK_NAMES =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul';
const BLOCK = new RegExp(`^</?(?:${BLOCK_NAMES})(?:[ \\t]|/?>|$)`, 'i');
const ATTR = String.raw`(?:[ \t]+[a-zA-Z_:][a-zA-Z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^"'=<>\x60\x00-\x20]+|'[^']*'|"[^"]*"))?)`;
const COMPLETE = new RegExp(
  `^(?:<[A-Za-z][A-Za-z0-9-]*${ATTR}*[ \\t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`,
);
const END = [/<\/(?:script|pre|style|textarea)>/i, /-->/, /\?>/, />/, /\]\]>/];

/** The kind (1 to 7) of the HTML block starting at `rest` (a line from its `<`), or 0. */
export function htmlBlockStart(rest: string, canInterruptParagraph: boolean): number {
  if (rest.charCodeAt(0) !== 60) return 0;
  if (RAW.test(rest)) return 1;
  if (rest.startsWith('<!--')) return 2;
  if (rest.startsWith('<?')) return 3;
  if (/^<![A-Za-z]/.test(rest)) return 4;
  if (rest.startsWith('<![CDATA[')) return 5;
  if (BLOCK.test(rest)) return 6;
  if (!canInterruptParagraph && COMPLETE.test(rest) && !/^<(?:script|pre|style|textarea)\b/i.test(rest))
    return 7;
  return 0;
}

/** Whether `line` ends an HTML block of kind 1 to 5 (6 and 7 end at a blank line). */
export function htmlBlockEnds(kind: number, line: string): boolean {
  const re = END[kind - 1];
  return re ? re.test(line) : false;
}
