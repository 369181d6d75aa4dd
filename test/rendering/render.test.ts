import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { compiledCacheSize } from '../../src/rendering/engine.ts';
import { checkTemplateSyntax, compileTemplate, LIMITS, recipientVariables, render, renderSubject } from '../../src/rendering/render.ts';

const html = (source: string, variables: Record<string, unknown> = {}) => render({ subject: 's', html: source }, variables).html;
const subject = (source: string, variables: Record<string, unknown> = {}) => renderSubject(source, variables);

/** Runs `work` and returns the AppError it threw (failing when it threw nothing or something else). */
function appErrorOf(work: () => unknown): AppError {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError, got ${error}`);
    return error;
  }
  assert.fail('expected an error');
}

describe('rendering: placeholders and variables (docs/decisions/templates.md)', () => {
  test('{{name}} and {{data.plan}} read the contact data; unknown variables render empty', () => {
    const variables = recipientVariables({ id: 'c-1', email: 'ann@example.test', data: { name: 'Ann', plan: 'pro' } });
    assert.equal(html('Hi {{name}} on {{data.plan}} [{{ nope }}][{{ data.nope.deeper }}]', variables), 'Hi Ann on pro [][]');
  });

  test('email, id and the link URLs are variables, and contact data cannot shadow them', () => {
    const variables = recipientVariables(
      { id: 'c-1', email: 'ann@example.test', data: { email: 'forged@example.test', id: 'forged', plan: 'pro' } },
      { unsubscribeUrl: 'https://x.test/u', subscribeUrl: 'https://x.test/s', manageUrl: 'https://x.test/m' },
      { event: { name: 'signup', data: { source: 'ad' } }, workflow: { name: 'Welcome' } },
    );
    assert.equal(
      html('{{email}} {{id}} {{unsubscribeUrl}} {{subscribeUrl}} {{manageUrl}} {{event.data.source}} {{workflow.name}} {{data.plan}}', variables),
      'ann@example.test c-1 https://x.test/u https://x.test/s https://x.test/m ad Welcome pro',
    );
  });

  test('{{ x ?? "fallback" }} falls back when the value is missing, null or an empty string', () => {
    const source = '[{{ name ?? "friend" }}]';
    assert.equal(html(source, {}), '[friend]');
    assert.equal(html(source, { name: null }), '[friend]');
    assert.equal(html(source, { name: '' }), '[friend]');
    assert.equal(html(source, { name: 'Ann' }), '[Ann]');
    // Present but falsy values are values: false and 0 are kept.
    assert.equal(html(source, { name: false }), '[false]');
    assert.equal(html(source, { name: 0 }), '[0]');
  });

  test('?? takes single or double quotes, a variable or a number, chains, spacing, and later filters', () => {
    assert.equal(html("{{ name ?? 'pal' }}"), 'pal');
    assert.equal(html('{{name??"pal"}}'), 'pal');
    assert.equal(html('{{ data.plan ?? fallbackPlan }}', { data: {}, fallbackPlan: 'free' }), 'free');
    assert.equal(html('{{ count ?? 3 }}'), '3');
    assert.equal(html('{{ a ?? b ?? "c" }}', { b: '' }), 'c');
    assert.equal(html('{{ a ?? b ?? "c" }}', { b: 'B' }), 'B');
    assert.equal(html('{{ name ?? "friend" | upcase }}'), 'FRIEND');
    assert.equal(html('{{ name ?? "friend" | upcase }}', { name: 'ann' }), 'ANN');
    assert.equal(html('{% assign who = name ?? "you" %}{{ who }}'), 'you');
  });

  test('?? inside a string literal, plain text or a raw block is left alone', () => {
    assert.equal(html('{{ "a ?? b" }} c ?? d'), 'a ?? b c ?? d');
    assert.equal(html('{% raw %}{{ x ?? y }}{% endraw %}'), '{{ x ?? y }}');
  });

  test('full Liquid: if, for, case, filters', () => {
    const source = [
      '{% if vip %}VIP{% else %}regular{% endif %}',
      '{% for item in items %}{{ forloop.index }}:{{ item | capitalize }};{% endfor %}',
      '{% case plan %}{% when "pro" %}P{% when "free" %}F{% else %}?{% endcase %}',
      '{{ price | times: 2 | round: 1 }}',
      '{{ "2024-03-05T10:00:00Z" | date: "%Y-%m-%d" }}',
    ].join('|');
    assert.equal(html(source, { vip: true, items: ['a', 'b'], plan: 'free', price: 1.25 }), 'VIP|1:A;2:B;|F|2.5|2024-03-05');
  });
});

describe('rendering: escaping', () => {
  const variables = { name: '<b>Ann & "Bo"</b>' };

  test('values are HTML-escaped in the body; {{ x | raw }} opts out', () => {
    assert.equal(html('{{ name }}', variables), '&lt;b&gt;Ann &amp; &#34;Bo&#34;&lt;/b&gt;');
    assert.equal(html('{{ name | raw }}', variables), '<b>Ann & "Bo"</b>');
    assert.equal(html('{{ missing ?? "<i>x</i>" }}'), '&lt;i&gt;x&lt;/i&gt;');
    assert.equal(html('<p>kept</p>'), '<p>kept</p>');
  });

  test('the subject is not escaped', () => {
    assert.equal(subject('Hi {{ name }}', variables), 'Hi <b>Ann & "Bo"</b>');
    assert.equal(subject('Hi {{ name | raw }}', variables), 'Hi <b>Ann & "Bo"</b>');
  });

  test('the subject has no CR or LF, is trimmed, and is cut to 998 characters', () => {
    assert.equal(subject('  Hello\r\n{{ name }}\n\n  there \r', { name: 'Ann\r\nBcc: x@y.test' }), 'Hello Ann Bcc: x@y.test there');
    const long = subject('{{ word }}', { word: 'x'.repeat(5000) });
    assert.equal(long.length, 998);
    // A cut never leaves half of a surrogate pair.
    const emoji = subject('{{ word }}', { word: `${'x'.repeat(997)}😀tail` });
    assert.equal(emoji, 'x'.repeat(997));
  });
});

describe('rendering: text part', () => {
  test('generated from the HTML: links as "text [url]", images dropped, styles and scripts gone', () => {
    const rendered = render(
      {
        subject: 'Hi',
        html: '<html><head><style>p { color: red }</style></head><body><p>Hello {{ name }},</p><p>Read <a href="https://x.test/a">the guide</a> or <a href="https://x.test/b">https://x.test/b</a>.<img src="https://x.test/p.gif" alt="pixel"></p><script>alert(1)</script></body></html>',
      },
      { name: 'Ann & Bo' },
    );
    assert.equal(rendered.text, 'Hello Ann & Bo,\n\nRead the guide [https://x.test/a] or https://x.test/b.');
    assert.equal(rendered.subject, 'Hi');
  });

  test('long paragraphs are not hard-wrapped', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    assert.equal(render({ subject: 's', html: `<p>${words}</p>` }, {}).text, words);
  });
});

describe('rendering: syntax errors name line and column', () => {
  test('an unclosed tag', () => {
    const error = appErrorOf(() => checkTemplateSyntax('<p>Hello</p>\n<p>\n  {% if vip %}VIP</p>', 'body'));
    assert.equal(error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.equal(error.statusCode, 400);
    assert.deepEqual(error.details, { field: 'body', line: 3, column: 3 });
    assert.match(error.message, /line 3, column 3/);
    assert.match(error.message, /body/);
  });

  test('an unknown filter, an unclosed output and a malformed tag', () => {
    assert.deepEqual(appErrorOf(() => checkTemplateSyntax('a\nb {{ name | shout }}')).details, { line: 2, column: 3 });
    assert.deepEqual(appErrorOf(() => checkTemplateSyntax('Hi {{ name ')).details, { line: 1, column: 4 });
    assert.deepEqual(appErrorOf(() => checkTemplateSyntax('{% for %}{% endfor %}')).details, { line: 1, column: 1 });
  });

  test('positions stay those of the source as written when ?? appears before the error', () => {
    const error = appErrorOf(() => checkTemplateSyntax('{{ a ?? "b" }} {{ c ?? d }} {{ e | shout }}', 'subject'));
    assert.deepEqual(error.details, { field: 'subject', line: 1, column: 29 });
    assert.doesNotMatch(error.message, /fallback/);
  });

  test('tags that read files are refused', () => {
    const error = appErrorOf(() => checkTemplateSyntax('x\n{% include "/etc/passwd" %}'));
    assert.equal(error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.deepEqual(error.details, { line: 2, column: 1 });
    assert.equal(appErrorOf(() => checkTemplateSyntax('{% render "x" %}')).code, 'TEMPLATE_SYNTAX_ERROR');
  });

  test('render of a broken body is the same 400', () => {
    assert.equal(appErrorOf(() => render({ subject: 'ok', html: '{% if x %}' }, {})).code, 'TEMPLATE_SYNTAX_ERROR');
    assert.equal(appErrorOf(() => render({ subject: '{{ x | nope }}', html: 'ok' }, {})).code, 'TEMPLATE_SYNTAX_ERROR');
  });
});

describe('rendering: bounded', () => {
  /** Asserts `work` fails with TEMPLATE_RENDER_ERROR within `ms`. */
  function assertStopped(work: () => unknown, ms: number, pattern: RegExp) {
    const started = performance.now();
    const error = appErrorOf(work);
    const elapsed = performance.now() - started;
    assert.equal(error.code, 'TEMPLATE_RENDER_ERROR', error.message);
    assert.equal(error.statusCode, 400);
    assert.match(error.message, pattern);
    assert.ok(elapsed < ms, `took ${Math.round(elapsed)} ms`);
  }

  test('a loop of 10^7 iterations is stopped quickly', () => {
    assertStopped(() => html('{% for i in (1..10000000) %}x{% endfor %}'), 2000, /limit/);
  });

  test('nested loops that allocate little are stopped by the time limit', () => {
    assertStopped(() => html('{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}{% endfor %}{% endfor %}{% endfor %}'), LIMITS.renderMs + 1500, /limit/);
  });

  test('doubling a string is stopped by the memory limit', () => {
    assertStopped(() => html('{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}'), 2000, /limit/);
  });

  test('an HTML output larger than the cap is an error, not a huge string', () => {
    const chunk = 'y'.repeat(10_000);
    assertStopped(() => html('{% for i in (1..300) %}{{ chunk }}{% endfor %}', { chunk }), 2000, /longer than/);
    assert.equal(html('{% for i in (1..100) %}{{ chunk }}{% endfor %}', { chunk }).length, 1_000_000);
  });

  test('a template source over the limit is refused', () => {
    const error = appErrorOf(() => checkTemplateSyntax('x'.repeat(LIMITS.sourceChars + 1), 'body'));
    assert.equal(error.code, 'TEMPLATE_SYNTAX_ERROR');
  });

  test('templates cannot reach object prototypes', () => {
    assert.equal(html('[{{ name.constructor }}][{{ data.__proto__ }}][{{ constructor.name }}]', { name: 'x', data: {} }), '[][][]');
  });
});

describe('rendering: compiled-template cache', () => {
  test('the same source compiles once; the cache hands back the same template', () => {
    const source = `cache probe ${Math.random()} {{ name }}`;
    const before = compiledCacheSize();
    const first = compileTemplate(source);
    assert.equal(compiledCacheSize(), before + 1);
    assert.equal(compileTemplate(source), first);
    assert.equal(compiledCacheSize(), before + 1);
    // Subject (plain) and body (escaping) compilations are distinct entries.
    assert.notEqual(compileTemplate(source, 'plain'), first);
  });
});
