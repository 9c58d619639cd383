/**
 * Checks for the seed and site import tests: a strict little XML reader (enough to prove a generated SVG is
 * well-formed and to count its shapes) and the plane geometry the floor plans must satisfy.
 */
import type { Point } from '../db/schema.ts';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);/g;

function checkText(text: string, where: number): string {
  if (text.includes('<')) throw new Error(`XML: '<' in text at ${where}`);
  if (text.replace(ENTITY, '').includes('&')) throw new Error(`XML: bare '&' at ${where}`);
  return text;
}

/** Parses a document with one root element; throws on anything that is not well-formed. */
export function parseXml(source: string): XmlElement {
  let at = 0;
  const stack: XmlElement[] = [{ name: '#document', attributes: {}, children: [], text: '' }];
  const top = () => {
    const element = stack[stack.length - 1];
    if (!element) throw new Error('XML: stack underflow');
    return element;
  };
  while (at < source.length) {
    const open = source.indexOf('<', at);
    const text = source.slice(at, open === -1 ? source.length : open);
    if (stack.length === 1 && text.trim() !== '') throw new Error(`XML: text outside the root at ${at}`);
    top().text += checkText(text, at);
    if (open === -1) break;
    at = open;
    if (source.startsWith('<?', at)) {
      const end = source.indexOf('?>', at);
      if (end === -1) throw new Error('XML: unterminated declaration');
      at = end + 2;
    } else if (source.startsWith('<!--', at)) {
      const end = source.indexOf('-->', at);
      if (end === -1) throw new Error('XML: unterminated comment');
      at = end + 3;
    } else if (source.startsWith('</', at)) {
      const end = source.indexOf('>', at);
      const name = source.slice(at + 2, end).trim();
      const element = stack.pop();
      if (!element || element.name !== name) throw new Error(`XML: </${name}> closes <${element?.name ?? ''}> at ${at}`);
      at = end + 1;
    } else {
      const end = source.indexOf('>', at);
      if (end === -1) throw new Error('XML: unterminated tag');
      let inner = source.slice(at + 1, end);
      const selfClosing = inner.endsWith('/');
      if (selfClosing) inner = inner.slice(0, -1);
      const name = NAME.exec(inner)?.[0];
      if (!name) throw new Error(`XML: bad tag name at ${at}`);
      const attributes: Record<string, string> = {};
      let rest = inner.slice(name.length);
      while (rest.trim() !== '') {
        const match = /^\s+([A-Za-z_][\w.:-]*)="([^"<]*)"/.exec(rest);
        if (!match?.[1] || match[2] === undefined) throw new Error(`XML: bad attribute in <${name}> at ${at}: ${rest.slice(0, 40)}`);
        if (match[1] in attributes) throw new Error(`XML: duplicate attribute ${match[1]} at ${at}`);
        attributes[match[1]] = checkText(match[2], at);
        rest = rest.slice(match[0].length);
      }
      const element: XmlElement = { name, attributes, children: [], text: '' };
      top().children.push(element);
      if (!selfClosing) stack.push(element);
      at = end + 1;
    }
  }
  if (stack.length !== 1) throw new Error(`XML: <${top().name}> is not closed`);
  const [root, ...others] = top().children;
  if (!root || others.length > 0) throw new Error('XML: a document has exactly one root element');
  return root;
}

export function descendants(element: XmlElement, predicate: (element: XmlElement) => boolean): XmlElement[] {
  return element.children.flatMap((child) => [...(predicate(child) ? [child] : []), ...descendants(child, predicate)]);
}

/** Ray casting; points on an edge count as outside or inside arbitrarily, which the tests avoid. */
export function insidePolygon(point: Point, polygon: readonly Point[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b) continue;
    if (a.y > point.y !== b.y > point.y && point.x < ((b.x - a.x) * (point.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

export function distanceToPolygon(point: Point, polygon: readonly Point[]): number {
  let best = Infinity;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b) continue;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length2 = dx * dx + dy * dy;
    const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((point.x - a.x) * dx + (point.y - a.y) * dy) / length2));
    best = Math.min(best, Math.hypot(point.x - (a.x + t * dx), point.y - (a.y + t * dy)));
  }
  return best;
}
