// Firefox for the cross-engine tests (tests/engines.py): Debian's firefox-esr,
// driven over WebDriver BiDi by puppeteer-core (no browser download). One JSON
// request a line on stdin, one JSON answer a line on stdout:
//   {"id": 1, "op": "open"}                          -> {"id": 1, "ok": true, "value": PAGE}
//   {"id": 2, "op": "goto", "page": PAGE, "url": U}   (also "reload", "close")
//   {"id": 3, "op": "evaluate", "page": PAGE, "expression": E} -> the value E resolves to
// An error answers {"id", "ok": false, "error"}. Closing stdin closes Firefox.
import puppeteer from 'puppeteer-core';
import { createInterface } from 'node:readline';

const executablePath = process.argv[2] || '/usr/bin/firefox-esr';
const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath,
  headless: true,
  protocolTimeout: 600_000,
  // no update checks, telemetry or remote settings: the machine is offline
  extraPrefsFirefox: { 'app.update.enabled': false, 'datareporting.policy.dataSubmissionEnabled': false },
});
const pages = new Map();
let next = 1;

const ops = {
  async open() {
    const page = await browser.newPage();
    page.setDefaultNavigationTimeout(120_000);
    pages.set(next, page);
    return next++;
  },
  async goto({ page, url }) { await pages.get(page).goto(url, { waitUntil: 'load' }); return null; },
  async reload({ page }) { await pages.get(page).reload({ waitUntil: 'load' }); return null; },
  async evaluate({ page, expression }) { return pages.get(page).evaluate(expression); },
  async close({ page }) { await pages.get(page).close(); pages.delete(page); return null; },
};

function answer(message) { process.stdout.write(`${JSON.stringify(message)}\n`); }

answer({ id: 0, ok: true, value: await browser.version() });
const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const request = JSON.parse(line);
  try {
    if (request.page !== undefined && !pages.has(request.page)) throw new Error(`no page ${request.page}`);
    answer({ id: request.id, ok: true, value: await ops[request.op](request) });
  } catch (err) {
    answer({ id: request.id, ok: false, error: String(err && err.message || err) });
  }
});
lines.on('close', async () => { await browser.close(); process.exit(0); });
