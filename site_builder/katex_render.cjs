// Build-time math: reads [{tex, display}, ...] as JSON on stdin, writes
// [{html} | {error}, ...] as JSON on stdout. Uses the project's npm katex.
"use strict";
const path = require("path");
const katex = require(path.resolve(process.argv[2], "katex", "dist", "katex.js"));
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const items = JSON.parse(input);
  const out = items.map(({ tex, display }) => {
    try {
      // \htmlData is the only trusted command: the build wraps every number printed
      // from a table in \htmlData{source=TABLE.key, ...} so the page names its source
      return { html: katex.renderToString(tex, {
        displayMode: display, throwOnError: true,
        trust: (ctx) => ctx.command === "\\htmlData",
        strict: (code) => (code === "htmlExtension" ? "ignore" : "warn"),
      }) };
    } catch (err) {
      return { error: String(err.message || err) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
