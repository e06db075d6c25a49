// SPDX-License-Identifier: Apache-2.0
// The HTML report in a real browser (issue 30): Debian's chromium, headless and offline, opens the page that
// `costmodel report` wrote, and
//   - no console error, page error or request for anything but the file itself occurs;
//   - the first row of the top-configurations table, read from each cell's data-value under its header's
//     data-key, equals the first configuration of `costmodel plan --format json` with the same flags;
//   - clicking the step-time header sorts the rows by it, both ways;
//   - every section is there, and the page prints to PDF;
//   - a screenshot and the PDF are kept for CI.
// usage: node report_test.mjs REPORT.html PLAN.json OUT_DIR   (exit 0: every check passed)

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [htmlPath, jsonPath, outDir] = process.argv.slice(2);
if (!htmlPath || !jsonPath || !outDir) {
  console.error("usage: node report_test.mjs REPORT.html PLAN.json OUT_DIR");
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const failures = [];
const fail = (message) => failures.push(message);

// The file itself, read as text: no address of any kind, no remote source, no imported sheet.
const text = readFileSync(htmlPath, "utf8");
for (const [pattern, what] of [
  [/http/i, "an http(s) address"],
  [/\bsrc\s*=/i, "a src= attribute"],
  [/@import/i, "an @import"],
]) {
  if (pattern.test(text)) fail(`the page holds ${what}`);
}

const plan = JSON.parse(readFileSync(jsonPath, "utf8"));
const expected = plan.configs[0];

const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
try {
  const context = await browser.newContext({ offline: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const url = pathToFileURL(resolve(htmlPath)).href;
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") fail(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => fail(`page error: ${error.message}`));
  page.on("request", (request) => {
    if (request.url() !== url) fail(`requested ${request.url()}`);
  });
  await page.goto(url, { waitUntil: "load" });

  for (const id of ["assumptions", "plans", "pareto", "configuration", "step", "memory", "fabric", "money", "goodput",
    "launch", "evidence"]) {
    if ((await page.locator(`#${id}`).count()) !== 1) fail(`section #${id} missing`);
  }
  if ((await page.locator("#pareto + figure svg").count()) !== 1) fail("the Pareto front has no chart");

  // The first row against the JSON: every header whose key the configuration object has.
  const row = await page.evaluate(() => {
    const table = document.querySelector("#plans-table table");
    const keys = Array.from(table.tHead.rows[0].cells, (th) => th.dataset.key);
    const cells = Array.from(table.tBodies[0].rows[0].cells, (td) => td.dataset.value);
    return Object.fromEntries(keys.map((key, i) => [key, cells[i]]));
  });
  let compared = 0;
  for (const [key, shown] of Object.entries(row)) {
    if (!(key in expected) || expected[key] === null || typeof expected[key] === "object") continue;
    const want = expected[key];
    const same = typeof want === "number" ? Number(shown) === want : String(want) === shown;
    if (!same) fail(`first row ${key}: page ${shown}, JSON ${want}`);
    ++compared;
  }
  for (const key of ["tp", "pp", "dp", "step_time_s", "mfu", "memory_per_gpu_bytes", "cost_usd", "capex_usd"]) {
    if (!(key in row)) fail(`the top table has no ${key} column`);
  }
  if (compared < 15) fail(`only ${compared} columns compared with the JSON`);

  // Sorting: ascending, then descending, by the step time's SI value.
  const steps = async () =>
    page.evaluate(() => {
      const table = document.querySelector("#plans-table table");
      const column = Array.from(table.tHead.rows[0].cells).findIndex((th) => th.dataset.key === "step_time_s");
      return Array.from(table.tBodies[0].rows, (tr) => Number(tr.cells[column].dataset.value));
    });
  const header = page.locator('#plans-table th[data-key="step_time_s"]');
  await header.click();
  const up = await steps();
  await header.click();
  const down = await steps();
  const sorted = (values, sign) => values.every((v, i) => i === 0 || sign * (v - values[i - 1]) >= 0);
  if (up.length < 2 || !sorted(up, 1)) fail(`not ascending after one click: ${up}`);
  if (!sorted(down, -1)) fail(`not descending after two clicks: ${down}`);

  await page.screenshot({ path: join(outDir, "report.png"), fullPage: true });
  const pdf = await page.pdf({ path: join(outDir, "report.pdf"), format: "A4", printBackground: true });
  if (pdf.length < 10000) fail(`the PDF is only ${pdf.length} bytes`);
  console.log(`report_test: ${compared} columns of the first row equal the JSON; screenshot and PDF in ${outDir}`);
} finally {
  await browser.close();
}

if (failures.length > 0) {
  for (const message of failures) console.error(`report_test: FAIL ${message}`);
  process.exit(1);
}
console.log("report_test: passed");
