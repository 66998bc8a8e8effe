import type { HtmlExtension } from 'micromark-util-types';

/**
 * Math as written (`\,` and all), escaped, in `span.math-inline` / `div.math-display`: KaTeX
 * renders it later in the DOM (math.ts, loaded only when a note has math).
 */
export const mathHtml: HtmlExtension = {
  enter: {
    mathFlow() {
      this.lineEndingIfNeeded();
      this.tag('<div class="math math-display">');
    },
    mathFlowFenceMeta() {
      this.buffer();
    },
    mathText() {
      this.buffer();
    },
  },
  exit: {
    mathFlow() {
      const value = this.resume();
      this.raw(this.encode(value.replace(/(?:\r?\n|\r)$/, '')));
      this.tag('</div>');
      this.setData('mathFlowOpen');
      this.setData('slurpOneLineEnding');
    },
    mathFlowFence() {
      if (!this.getData('mathFlowOpen')) {
        this.setData('mathFlowOpen', true);
        this.setData('slurpOneLineEnding', true);
        this.buffer();
      }
    },
    mathFlowFenceMeta() {
      this.resume();
    },
    mathFlowValue(token) {
      this.raw(this.sliceSerialize(token));
    },
    mathText(token) {
      const value = this.resume();
      // As in Obsidian, `$` opens math only before a non-space and closes only after one:
      // `$5 and $10` stays text (single dollars only; `$$...$$` inline is always math).
      const single =
        this.sliceSerialize(token).startsWith('$') && !this.sliceSerialize(token).startsWith('$$');
      if (single && (/^\s|\s$/.test(value) || value === '')) {
        this.raw(this.encode(`$${value}$`));
        return;
      }
      this.tag('<span class="math math-inline">');
      this.raw(this.encode(value));
      this.tag('</span>');
    },
    mathTextData(token) {
      this.raw(this.sliceSerialize(token));
    },
  },
};
