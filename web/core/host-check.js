// Why a script of the site did not load, in words a person publishing the site
// can act on: what the host answered for it (HTTP status, Content-Type) and
// what to change. A browser runs an ES module only when it comes with a
// JavaScript MIME type; a host that types files by a table of names it ships
// (nginx's mime.types, Apache's) and does not know a name sends
// application/octet-stream, and the browser's own message is only "Failed to
// fetch dynamically imported module". The site names every module `.js`
// (site_builder/assemble.py), so a stock table is enough; this names the
// cause when a host's table or a proxy still gets it wrong.

const JAVASCRIPT = /^(text|application)\/(javascript|ecmascript|x-javascript)\b/i;

// (url, what the browser said) -> a sentence: the host's answer and the fix.
export async function explainScriptFailure(url, err, fetcher = fetch) {
  const said = err && err.message ? err.message : String(err || 'failed');
  const path = new URL(url, typeof location !== 'undefined' ? location.href : undefined).pathname;
  let response;
  try {
    response = await fetcher(url, { cache: 'no-store' });
  } catch (netErr) {
    const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
    return `could not load ${path}: the request failed (${netErr && netErr.message ? netErr.message : netErr})` +
      (offline ? '; the browser is offline and has no copy of it yet' : '; is the site still being served?');
  }
  const type = response.headers.get('content-type') || '(none)';
  if (!response.ok) {
    return `could not load ${path}: the host answered HTTP ${response.status} (Content-Type ${type}); ` +
      'publish the whole build/site folder, every file at its place (a stale page after a rebuild: reload it)';
  }
  if (!JAVASCRIPT.test(type)) {
    return `could not load ${path}: the host sent it as Content-Type ${type}, and a browser runs a module only ` +
      'when it is sent as text/javascript; map .js to text/javascript (or application/javascript) on the host ' +
      '(nginx: the stock mime.types does; Apache: AddType text/javascript .js)';
  }
  return `could not load ${path}: the host sent it as ${type} (HTTP ${response.status}), so the file itself ` +
    `did not run: ${said} (a damaged or cut-off copy? reload the page)`;
}
