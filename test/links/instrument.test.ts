import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { instrumentHtml, MAX_TRACKED_URLS } from '../../src/links/instrument.ts';
import { linkUrls, listUnsubscribeHeaders } from '../../src/links/list-unsubscribe.ts';
import { LINK_PURPOSES, signLinkToken, verifyLinkToken } from '../../src/links/tokens.ts';

const secret = randomBytes(32).toString('hex');
const publicUrl = 'https://mail.example.test';
const projectId = randomUUID();
const emailId = randomUUID();
const contactId = randomUUID();
const options = { publicUrl, secret, projectId, emailId, contactId };

/** The click tokens of every rewritten link, decoded. */
function clicks(html: string) {
  return [...html.matchAll(/https:\/\/mail\.example\.test\/t\/c\/([A-Za-z0-9_-]+)/g)].map((match) => verifyLinkToken(secret, match[1]!, 'click'));
}

describe('link tokens', () => {
  test('round trip for every purpose and field combination', () => {
    for (const purpose of LINK_PURPOSES) {
      for (const token of [
        { purpose, projectId },
        { purpose, projectId, contactId },
        { purpose, projectId, contactId, emailId },
        { purpose, projectId, emailId, index: 0 },
        { purpose, projectId, emailId, index: 65535 },
      ]) {
        const signed = signLinkToken(secret, token);
        assert.match(signed, /^[A-Za-z0-9_-]+$/, 'URL-safe');
        assert.deepEqual(verifyLinkToken(secret, signed, purpose), token);
      }
    }
  });

  test('a forged, altered, truncated, re-purposed or foreign-secret token does not verify', () => {
    const signed = signLinkToken(secret, { purpose: 'unsubscribe', projectId, contactId, emailId });
    assert.equal(verifyLinkToken(secret, signed, 'subscribe'), null, 'signed for another purpose');
    assert.equal(verifyLinkToken(randomBytes(32).toString('hex'), signed, 'unsubscribe'), null, 'another secret');
    assert.equal(verifyLinkToken(secret, signed.slice(0, -1), 'unsubscribe'), null, 'truncated');
    assert.equal(verifyLinkToken(secret, `${signed}A`, 'unsubscribe'), null, 'extended');
    assert.equal(verifyLinkToken(secret, '', 'unsubscribe'), null);
    assert.equal(verifyLinkToken(secret, 'not a token!', 'unsubscribe'), null);
    for (let i = 0; i < signed.length; i++) {
      const altered = signed.slice(0, i) + (signed[i] === 'A' ? 'B' : 'A') + signed.slice(i + 1);
      assert.equal(verifyLinkToken(secret, altered, 'unsubscribe'), null, `altered at ${i}`);
    }
    // A forged payload with a made-up tag: same layout, different project.
    const bytes = Buffer.from(signed, 'base64url');
    Buffer.from(randomUUID().replaceAll('-', ''), 'hex').copy(bytes, 3);
    assert.equal(verifyLinkToken(secret, bytes.toString('base64url'), 'unsubscribe'), null);
  });
});

describe('instrumentHtml', () => {
  test('adds the open pixel before </body> and rewrites http(s) links to signed click tokens', () => {
    const html = '<html><body><p>Hi</p><a href="https://example.com/a?x=1&amp;y=2">A</a> <A HREF=\'http://example.org/b\'>B</A></BODY></html>';
    const result = instrumentHtml(html, options);
    assert.deepEqual(result.urls, ['https://example.com/a?x=1&y=2', 'http://example.org/b'], 'entities decoded; order of appearance');
    assert.deepEqual(clicks(result.html), [
      { purpose: 'click', projectId, emailId, index: 0 },
      { purpose: 'click', projectId, emailId, index: 1 },
    ]);
    assert.ok(!result.html.includes('example.com'), 'original URLs are not in the HTML any more');
    const pixel = result.html.match(/<img src="https:\/\/mail\.example\.test\/t\/o\/([A-Za-z0-9_-]+)" width="1" height="1"[^>]*>/);
    assert.ok(pixel, result.html);
    assert.deepEqual(verifyLinkToken(secret, pixel[1]!, 'open'), { purpose: 'open', projectId, emailId });
    assert.ok(result.html.endsWith(`${pixel[0]}</BODY></html>`), 'pixel right before the closing body tag');
    assert.ok(result.html.includes('>A</a> <A HREF='), 'everything else is left as written');
  });

  test('without </body> the pixel goes at the end', () => {
    const result = instrumentHtml('<p>Hello</p>', options);
    assert.match(result.html, /^<p>Hello<\/p><img src="https:\/\/mail\.example\.test\/t\/o\/[^"]+"[^>]*\/>$/);
    assert.deepEqual(result.urls, []);
  });

  test('attribute order and quoting variants', () => {
    const html = [
      '<a class="x" title="a > b" href="https://one.test/">1</a>',
      '<a href=\'https://two.test/q?a="b"\' target=_blank>2</a>',
      '<a target=_blank href=https://three.test/path>3</a>',
      '<a\n  data-x="1"\n  href = "https://four.test/"\n>4</a>',
      '<a href="  https://five.test/  ">5</a>',
      '<area shape="rect" href="https://six.test/">',
    ].join('');
    const result = instrumentHtml(html, options);
    assert.deepEqual(result.urls, [
      'https://one.test/',
      'https://two.test/q?a=%22b%22',
      'https://three.test/path',
      'https://four.test/',
      'https://five.test/',
      'https://six.test/',
    ]);
    assert.equal(clicks(result.html).length, 6);
    assert.ok(result.html.includes('<a class="x" title="a > b" href="https://mail.example.test/t/c/'), 'other attributes kept');
    assert.ok(result.html.includes(' target=_blank>2</a>'));
    assert.ok(result.html.includes('<a target=_blank href="https://mail.example.test/t/c/'));
  });

  test('mailto:, tel:, anchors, relative links, our own links and non-links are left alone', () => {
    const { unsubscribeUrl, manageUrl } = linkUrls({ publicUrl, secret, projectId, contactId, emailId });
    const html = [
      '<a href="mailto:hi@example.com">m</a>',
      '<a href="tel:+123">t</a>',
      '<a href="#top">#</a>',
      '<a href="/relative">r</a>',
      '<a href="javascript:alert(1)">j</a>',
      '<a name="anchor">n</a>',
      `<a href="${unsubscribeUrl}">u</a>`,
      `<a href="${manageUrl}">m</a>`,
      '<link href="https://fonts.test/css" rel="stylesheet">',
      '<img src="https://img.test/logo.png">',
      '<abbr href="https://abbr.test/">x</abbr>',
      '<!-- <a href="https://comment.test/">c</a> -->',
      '<script>var s = \'<a href="https://script.test/">\';</script>',
      '<style>a[href="https://style.test/"]{}</style>',
      '<img alt=\'<a href="https://alt.test/">\' src="x.png">',
    ].join('');
    const result = instrumentHtml(html, options);
    assert.deepEqual(result.urls, []);
    assert.equal(result.html.replace(/<img src="https:\/\/mail\.example\.test\/t\/o\/[^>]*>$/, ''), html);
  });

  test('Outlook conditional comments are markup: their links are tracked', () => {
    const html = '<!--[if mso]><a href="https://mso.test/">o</a><![endif]--><a href="https://all.test/">a</a>';
    assert.deepEqual(instrumentHtml(html, options).urls, ['https://mso.test/', 'https://all.test/']);
  });

  test('the same URL twice is listed once and both links share its index', () => {
    const html = '<a href="https://same.test/x">1</a><a href="https://other.test/">2</a><a href=\'https://same.test/x\'>3</a>';
    const result = instrumentHtml(html, options);
    assert.deepEqual(result.urls, ['https://same.test/x', 'https://other.test/']);
    assert.deepEqual(
      clicks(result.html).map((token) => token?.index),
      [0, 1, 0],
    );
  });

  test('instrumenting is deterministic (a retried delivery stores the same list) and bounded', () => {
    const html = '<a href="https://a.test/">a</a><a href="https://b.test/">b</a>';
    assert.deepEqual(instrumentHtml(html, options), instrumentHtml(html, options));
    const many = Array.from({ length: MAX_TRACKED_URLS + 5 }, (_, i) => `<a href="https://many.test/${i}">${i}</a>`).join('');
    const result = instrumentHtml(many, options);
    assert.equal(result.urls.length, MAX_TRACKED_URLS);
    assert.ok(result.html.includes(`<a href="https://many.test/${MAX_TRACKED_URLS}">`), 'links past the limit stay as written');
  });
});

describe('linkUrls and listUnsubscribeHeaders', () => {
  test('signed /u, /s and /m links and the RFC 8058 header pair', () => {
    const urls = linkUrls({ publicUrl, secret, projectId, contactId });
    const token = (url: string, path: string) => {
      assert.ok(url.startsWith(`${publicUrl}/${path}/`), url);
      return url.slice(publicUrl.length + path.length + 2);
    };
    assert.deepEqual(verifyLinkToken(secret, token(urls.unsubscribeUrl, 'u'), 'unsubscribe'), { purpose: 'unsubscribe', projectId, contactId });
    assert.deepEqual(verifyLinkToken(secret, token(urls.subscribeUrl, 's'), 'subscribe'), { purpose: 'subscribe', projectId, contactId });
    assert.deepEqual(verifyLinkToken(secret, token(urls.manageUrl, 'm'), 'manage'), { purpose: 'manage', projectId, contactId });
    const withEmail = linkUrls({ publicUrl, secret, projectId, contactId, emailId });
    assert.equal(verifyLinkToken(secret, token(withEmail.unsubscribeUrl, 'u'), 'unsubscribe')?.emailId, emailId);
    assert.deepEqual(listUnsubscribeHeaders(urls.unsubscribeUrl), {
      'List-Unsubscribe': `<${urls.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });
});
