import type { SubscriptionPage } from './links.service.ts';

/**
 * The small self-contained pages behind /u, /s and /m (docs/decisions/sending.md: a GET shows a confirmation
 * page; only a POST changes anything). Every value is escaped; no script, no external resource.
 */

/** Headers for every page: never cached, indexed or framed, and the token does not leak as a Referer. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
} as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4f5;color:#18181b;margin:0;padding:48px 16px}
main{max-width:440px;margin:0 auto;background:#fff;border-radius:8px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.1)}
h1{font-size:20px;margin:0 0 12px}p{line-height:1.5;margin:0 0 16px}form{display:inline-block;margin:0 8px 0 0}
button{font:inherit;padding:8px 16px;border-radius:6px;border:1px solid #18181b;background:#18181b;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#18181b}.muted{color:#71717a;font-size:14px}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** A button that POSTs to one of our link paths; the action is relative to this page (/x/<token>). */
function button(action: string, label: string, primary: boolean): string {
  // The unsubscribe form sends the RFC 8058 body too, so both routes into POST /u look alike.
  const field = action.startsWith('u/') ? '<input type="hidden" name="List-Unsubscribe" value="One-Click">' : '';
  return `<form method="post" action="../${escapeHtml(action)}">${field}<button type="submit"${primary ? '' : ' class="secondary"'}>${escapeHtml(label)}</button></form>`;
}

function state(page: SubscriptionPage): string {
  if (page.subscribed) return 'subscribed';
  return page.snoozedUntil ? `paused until ${page.snoozedUntil.slice(0, 10)}` : 'unsubscribed';
}

export function subscriptionPageHtml(page: SubscriptionPage): string {
  const who = `<strong>${escapeHtml(page.email)}</strong>`;
  const from = `<strong>${escapeHtml(page.projectName)}</strong>`;
  const unsubscribe = (primary: boolean) => button(page.actions.unsubscribe, 'Unsubscribe', primary);
  const subscribe = (primary: boolean, label = 'Resubscribe') => button(page.actions.subscribe, label, primary);

  if (page.purpose === 'manage') {
    return layout(
      'Email preferences',
      `<h1>Email preferences</h1>
<p>${who} is currently <strong>${escapeHtml(state(page))}</strong> to email from ${from}.</p>
<p>${unsubscribe(page.subscribed)} ${subscribe(!page.subscribed, 'Subscribe')}</p>`,
    );
  }
  if (page.purpose === 'unsubscribe') {
    // A paused (snoozed) contact is offered the permanent unsubscribe.
    if (page.step === 'done' || (!page.subscribed && !page.snoozedUntil)) {
      return layout(
        'Unsubscribed',
        `<h1>You are unsubscribed</h1>
<p>${who} will no longer receive marketing email from ${from}.</p>
<p class="muted">Unsubscribed by mistake?</p>
<p>${subscribe(false)}</p>`,
      );
    }
    return layout(
      'Unsubscribe',
      `<h1>Unsubscribe?</h1>
<p>Stop marketing email from ${from} to ${who}.</p>
<p>${unsubscribe(true)}</p>`,
    );
  }
  if (page.step === 'done' || page.subscribed) {
    return layout(
      'Subscribed',
      `<h1>You are subscribed</h1>
<p>${who} will receive email from ${from}.</p>
<p>${unsubscribe(false)}</p>`,
    );
  }
  return layout(
    'Subscribe',
    `<h1>Subscribe?</h1>
<p>Receive email from ${from} at ${who}.</p>
<p>${subscribe(true, 'Subscribe')}</p>`,
  );
}

export function notFoundPageHtml(): string {
  return layout(
    'Link not valid',
    `<h1>This link is not valid</h1>
<p>It may have been copied incompletely. Use the link from the most recent email you received.</p>`,
  );
}
