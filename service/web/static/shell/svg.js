// Writing SVG markup as strings, for the drawing modules (static/games/*.js): each module's
// render(view, ctx) is a pure function of the view returning one <svg> with a fixed viewBox.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** `name="value"` pairs; null, undefined and false attributes are left out. Objects (a
 *  data-pick partial action) are written as JSON. */
export function attrs(attributes) {
  return Object.entries(attributes)
    .filter(([, value]) => value !== null && value !== undefined && value !== false)
    .map(([name, value]) => ` ${name}="${esc(typeof value === "object" ? JSON.stringify(value) : value)}"`)
    .join("");
}

/** One element: tag("rect", {x: 1}) or tag("g", {...}, child, child, ...) (children are markup). */
export function tag(name, attributes = {}, ...children) {
  const inner = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false).join("");
  return inner ? `<${name}${attrs(attributes)}>${inner}</${name}>` : `<${name}${attrs(attributes)}/>`;
}

export function text(x, y, content, attributes = {}) {
  return `<text${attrs({ x, y, ...attributes })}>${esc(content)}</text>`;
}

/** The whole drawing: a fixed viewBox, scaled by the page. `title` names it for screen readers. */
export function svg(width, height, title, ...children) {
  return tag(
    "svg",
    { xmlns: "http://www.w3.org/2000/svg", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, "font-family": "system-ui, sans-serif" },
    tag("title", {}, esc(title)),
    ...children,
  );
}
