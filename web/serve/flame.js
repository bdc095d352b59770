// A flame graph of a recording's stacks (the tree of GET .../flame): one
// box per function, as wide as its share of the samples, callers below
// callees on top; a click zooms into a box, "all" zooms out. Names are
// text nodes and titles, never markup.
import { h, clear } from './widgets.js';

const ROW = 18;

function color(name) {
  let x = 0;
  for (let i = 0; i < name.length; i++) x = (x * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${10 + (x % 45)}, ${70 + (x % 20)}%, ${55 + (x % 15)}%)`;
}

function depth(n) {
  return 1 + Math.max(0, ...(n.c || []).map(depth));
}

export class FlameGraph {
  constructor(container) {
    this.el = h('div', { class: 'flame' });
    this.crumb = h('div', { class: 'flame-crumb' });
    container.append(this.crumb, this.el);
    this.root = null;
  }

  set(tree) {
    this.root = tree;
    this.show(tree, [tree]);
  }

  show(node, path) {
    clear(this.el);
    clear(this.crumb);
    if (!node || !node.v) {
      this.el.append(h('p', { class: 'muted' }, 'No samples.'));
      return;
    }
    path.forEach((p, i) => {
      if (i) this.crumb.append(' › ');
      this.crumb.append(h('a', { href: '#', onclick: (e) => { e.preventDefault(); this.show(p, path.slice(0, i + 1)); } }, p.n));
    });
    const rows = Math.min(depth(node), 200);
    this.el.style.height = `${rows * ROW}px`;
    const place = (n, x, d, trail) => {
      const w = n.v / node.v;
      if (w < 0.002 || d >= rows) return;
      const box = h('div', {
        class: 'fbox',
        title: `${n.n}\n${n.v} samples, ${(100 * n.v / this.root.v).toFixed(2)}% of all`,
        style: `left:${x * 100}%;width:${w * 100}%;bottom:${d * ROW}px;background:${color(n.n)}`,
        onclick: () => this.show(n, trail),
      }, w > 0.03 ? n.n : '');
      this.el.append(box);
      let at = x;
      for (const c of n.c || []) {
        place(c, at, d + 1, [...trail, c]);
        at += c.v / node.v;
      }
    };
    place(node, 0, 0, path);
  }
}
