/**
 * Screenshots of every starter template (src/templates/starters) at phone (390 px) and desktop
 * (1280 px) width, rendered as a save renders them (MJML, then Liquid with no contact, so the
 * fallbacks show), taken in Chromium: `npx tsx scripts/starter-screenshots.ts`. Writes
 * docs/screenshots/templates/<starter>-<width>.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { PACKAGE_ROOT } from '../src/paths.ts';
import { mjmlToHtml } from '../src/rendering/mjml.ts';
import { recipientVariables, render } from '../src/rendering/render.ts';
import { STARTERS } from '../src/templates/starters/index.ts';

const OUT = join(PACKAGE_ROOT, 'docs', 'screenshots', 'templates');
const WIDTHS = [390, 1280];

mkdirSync(OUT, { recursive: true });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  for (const starter of STARTERS) {
    const html = await mjmlToHtml(starter.source);
    const variables = recipientVariables({ id: '', email: '', data: {} }, { unsubscribeUrl: '#unsubscribe', manageUrl: '#manage' });
    const rendered = render({ subject: starter.subject, html }, variables);
    for (const width of WIDTHS) {
      const page = await browser.newPage({ viewport: { width, height: 800 }, deviceScaleFactor: 1 });
      await page.setContent(rendered.html, { waitUntil: 'load' });
      await page.screenshot({ path: join(OUT, `${starter.id}-${width}.png`), fullPage: true });
      await page.close();
    }
    console.log(`${starter.id}: ${rendered.subject}`);
  }
} finally {
  await browser.close();
}
