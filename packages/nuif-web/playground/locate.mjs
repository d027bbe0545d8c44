// JSON Pointer → line and column in a JSON text, for the playground's marks (no DOM here,
// so tests/web runs it under Node against nuif-core's own locations).

/**
 * Where the value at a JSON Pointer starts in a JSON text: {line, column} (1-based, the column in
 * Unicode characters, as nuif-core counts), or null. For failures that nuif-core locates by
 * pointer only (a patch operation's), so that the patch editor can mark them too.
 */
export function locatePointer(text, pointer) {
  if (typeof pointer !== "string" || (pointer && !pointer.startsWith("/"))) return null;
  const tokens = pointer ? pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~")) : [];
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const skipString = () => {
    for (i++; i < text.length; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === '"') return void i++;
    }
  };
  const skipValue = () => {
    ws();
    if (text[i] === '"') return skipString();
    if (text[i] === "{" || text[i] === "[") {
      let depth = 0;
      for (; i < text.length; i++) {
        const c = text[i];
        if (c === '"') {
          skipString();
          i--;
        } else if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") {
          if (--depth === 0) return void i++;
        }
      }
      return;
    }
    while (i < text.length && !",}] \t\r\n".includes(text[i])) i++;
  };
  for (const token of tokens) {
    ws();
    if (text[i] === "{") {
      i++;
      let found = false;
      for (;;) {
        ws();
        if (text[i] !== '"') return null;
        const start = i;
        skipString();
        const key = JSON.parse(text.slice(start, i));
        ws();
        i++; // the colon
        if (key === token) {
          found = true;
          break;
        }
        skipValue();
        ws();
        if (text[i] !== ",") return null;
        i++;
      }
      if (!found) return null;
    } else if (text[i] === "[") {
      i++;
      const index = Number(token);
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return null;
      for (let k = 0; k < index; k++) {
        skipValue();
        ws();
        if (text[i] !== ",") return null;
        i++;
      }
    } else {
      return null;
    }
  }
  ws();
  if (i >= text.length) return null;
  const before = text.slice(0, i);
  const lineStart = before.lastIndexOf("\n") + 1;
  return {
    line: before.split("\n").length,
    column: Array.from(text.slice(lineStart, i)).length + 1,
  };
}
