/**
 * A corpus of realistic messages made from combinations of content features: each message draws several features with a seeded generator, and every feature appears
 * in many messages. Sources use the line breaks people paste (LF, CRLF, a stray CR), so the
 * service's canonical form is what is tested, not the test's.
 */

export const FEATURES = [
  'paragraphs',
  'list',
  'table',
  'cjk',
  'rtl',
  'emoji',
  'longLine',
  'longUrl',
  'tabsAndTrailingSpaces',
  'emptyLinesAtEnd',
  'mixedLineBreaks',
  'dotAndFromLines',
  'inlineImage',
  'attachments',
  'customHeaders',
  'unicodeNames',
] as const;
export type Feature = (typeof FEATURES)[number];

export type CorpusAttachment = { filename: string; content: string; contentType: string; contentId?: string; disposition?: 'attachment' | 'inline' };

export type CorpusMessage = {
  index: number;
  features: Feature[];
  subject: string;
  html: string;
  fromName: string;
  toName: string | undefined;
  headers: Record<string, string>;
  attachments: CorpusAttachment[];
};

/** mulberry32: a small seeded generator, so a failing message can be made again by its index. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PARAGRAPHS = [
  'Thanks for your order. We have packed everything and handed it to the carrier this morning; you will get a tracking link as soon as the parcel is scanned.',
  'If anything is missing or arrived damaged, reply to this message within 30 days and we will send a replacement or refund you, whichever you prefer.',
  'Our support team answers on weekdays between 9:00 and 18:00 (CET). Outside those hours, the help centre has answers to the questions we hear most.',
];

const CJK = [
  '感谢您的订购。我们已于今天上午将包裹交给快递公司，包裹扫描后您将收到追踪链接。',
  'ご注文ありがとうございます。商品は本日発送いたしました。到着まで今しばらくお待ちください。',
  '주문해 주셔서 감사합니다. 오늘 오전에 택배사에 상품을 전달했습니다.',
];
const RTL = ['شكرًا لطلبك. لقد قمنا بشحن الطلب هذا الصباح وسيصلك رابط التتبع قريبًا.', 'תודה על ההזמנה שלך. המשלוח יצא הבוקר ותקבלו קישור למעקב בקרוב.'];
const EMOJI = '🎉 Your order is on its way 🚚💨 — thanks! 👍🏽 👨‍👩‍👧‍👦 🇯🇵 ❤️';

// A 1×1 PNG and a few bytes of a PDF: binary content with CR, LF and NUL bytes in it.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\r\n1 0 obj\r<< /Type /Catalog >>\nendobj\n', 'binary'), Buffer.from([0, 13, 10, 13, 0, 255])]).toString(
  'base64',
);

const FROM_NAMES = ['Zoë Ångström', '山田 太郎', 'محمد الأحمد', 'Łukasz Żółć 🚀', 'Ñandú “Quotes” & Co.'];
const TO_NAMES = ['Renée Dubois', '김민준', 'דנה כהן', 'Jürgen O’Brien'];

/** `count` messages; message i is the same on every run. */
export function generateCorpus(count: number, seed = 14): CorpusMessage[] {
  return Array.from({ length: count }, (_, index) => corpusMessage(index, seed));
}

function corpusMessage(index: number, seed: number): CorpusMessage {
  const next = random(seed * 100_003 + index);
  // Each feature with probability 0.4, plus one chosen by the index so that all appear often.
  const features = FEATURES.filter((_feature, f) => f === index % FEATURES.length || next() < 0.4);
  const has = (feature: Feature) => features.includes(feature);
  const parts: string[] = [`<h1>Order #${1000 + index}</h1>`];
  if (has('paragraphs')) parts.push(...PARAGRAPHS.map((p) => `<p>\n  ${p}\n</p>`));
  else parts.push(`<p>${PARAGRAPHS[index % PARAGRAPHS.length]}</p>`);
  if (has('list')) parts.push('<ul>\n  <li>Wool socks, size 42</li>\n  <li>Rain jacket (navy)</li>\n  <li>Gift wrap</li>\n</ul>', '<ol>\n<li>Unpack</li>\n<li>Enjoy</li>\n</ol>');
  if (has('table')) {
    const rows = [
      ['Item', 'Qty', 'Price'],
      ['Wool socks', '2', '€ 24.00'],
      ['Rain jacket', '1', '€ 129.00'],
      ['Total', '', '€ 153.00'],
    ];
    parts.push(
      `<table border="1" cellpadding="4">\n${rows.map((r, i) => `  <tr>${r.map((c) => (i === 0 ? `<th>${c}</th>` : `<td>${c}</td>`)).join('')}</tr>`).join('\n')}\n</table>`,
    );
  }
  if (has('cjk')) parts.push(...CJK.map((p) => `<p lang="zh">${p}</p>`));
  if (has('rtl')) parts.push(...RTL.map((p) => `<p dir="rtl">${p}</p>`));
  if (has('emoji')) parts.push(`<p>${EMOJI}</p>`);
  if (has('longLine')) parts.push(`<p>${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.repeat(40 + index)}</p><p>${'長'.repeat(700)}</p>`);
  if (has('longUrl'))
    parts.push(
      `<p><a href="https://shop.example.org/orders/${1000 + index}?ref=${'x9'.repeat(700)}&utm_source=mail">Track your order</a> or paste https://shop.example.org/t/${'q'.repeat(1200)}</p>`,
    );
  if (has('tabsAndTrailingSpaces')) parts.push('<pre>\tItem\t\tQty   \n\tSocks\t\t2     \n  \t  \n</pre>   \t', '<p>Trailing spaces here   </p>  ');
  if (has('dotAndFromLines')) parts.push('<p>\n.\n..leading dots\n.</p>\nFrom the team,\n.');
  if (has('inlineImage')) parts.push('<p><img src="cid:logo@corpus" alt="Logo" width="1" height="1"></p>');
  let html = parts.join('\n');
  if (has('mixedLineBreaks')) html = html.replace(/\n/g, (_, offset: number) => ['\r\n', '\r', '\n'][offset % 3]!);
  if (has('emptyLinesAtEnd')) html += '\n\n\n\r\n\n';

  const headers: Record<string, string> = {};
  if (has('customHeaders')) {
    headers['X-Order-Id'] = `ord_${1000 + index}`;
    headers['X-Note'] = 'Zürich — 東京 — Nairobi';
    headers['X-Long-Token'] = 'T'.repeat(990);
  }
  const attachments: CorpusAttachment[] = [];
  if (has('inlineImage')) attachments.push({ filename: 'logo.png', content: PNG, contentType: 'image/png', contentId: 'logo@corpus', disposition: 'inline' });
  if (has('attachments')) {
    attachments.push(
      { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
      { filename: 'items.csv', content: Buffer.from('item,qty\nsocks,2\r\njacket,1\rwrap,1\n').toString('base64'), contentType: 'text/csv' },
      {
        filename: 'forwarded.eml',
        content: Buffer.from('From: a@example.org\nSubject: Earlier\n\nThe message you asked about.\n').toString('base64'),
        contentType: 'message/rfc822',
      },
      { filename: 'notes.txt', content: Buffer.from(`${'n'.repeat(1500)}\n\ttab line   \n`).toString('base64'), contentType: 'text/plain' },
    );
  }
  const subjects = [`Your order #${1000 + index} has shipped`, `注文 #${1000 + index} を発送しました 📦`, `Re: your question about order ${1000 + index}`];
  return {
    index,
    features,
    subject: has('longLine') ? `Order ${1000 + index} ${'S'.repeat(980)}` : subjects[index % subjects.length]!,
    html,
    fromName: has('unicodeNames') ? FROM_NAMES[index % FROM_NAMES.length]! : 'Shop Support',
    toName: has('unicodeNames') ? TO_NAMES[index % TO_NAMES.length] : undefined,
    headers,
    attachments,
  };
}
