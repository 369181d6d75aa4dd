import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recipientVariables, render } from '../../src/rendering/render.ts';

const html = (source: string, variables: Record<string, unknown>) => render({ subject: 's', html: source }, variables).html;

describe('rendering: href and src from variables allow only http, https, mailto and tel', () => {
  const body = `<p>Hallo {{ name }},</p>
<p>Ihre Bestellung: <a href="{{ data.url }}">ansehen</a> · <a href='{{ data.url }}'>hier</a></p>
<img src={{ data.url }} alt="Logo">
<p>Direkt: <a href="{{ data.url | raw }}">roh</a> · Text: {{ data.url }}</p>`;

  test('javascript:, data: and vbscript: values (also mixed case or with tabs) become #; the text and a raw value keep them', () => {
    for (const url of ['javascript:alert(document.cookie)', ' JaVa\tScRipt:alert(1)', 'data:text/html;base64,PHNjcmlwdD4=', 'vbscript:msgbox(1)', 'file:///etc/passwd']) {
      const variables = recipientVariables({ id: 'c-1', email: 'kunde@example.test', data: { name: 'Jürgen', url } });
      const out = html(body, variables);
      assert.match(out, /<a href="#">ansehen<\/a> · <a href='#'>hier<\/a>/, url);
      assert.match(out, /<img src=# alt="Logo">/, url);
      assert.ok(out.includes(`Text: ${url}</p>`), `the text keeps ${url}`);
      assert.ok(out.includes(`<a href="${url}">roh</a>`), `raw keeps ${url}`);
    }
  });

  test('http, https, mailto, tel and relative URLs pass, escaped', () => {
    for (const [url, expected] of [
      ['https://shop.example/bestellung?id=42&lang=de', 'https://shop.example/bestellung?id=42&amp;lang=de'],
      ['http://example.com/', 'http://example.com/'],
      ['mailto:hilfe@example.com?subject=Frage', 'mailto:hilfe@example.com?subject=Frage'],
      ['tel:+49301234567', 'tel:+49301234567'],
      ['/konto/einstellungen', '/konto/einstellungen'],
    ]) {
      const out = html(body, recipientVariables({ id: 'c-1', email: 'kunde@example.test', data: { name: 'Jürgen', url } }));
      assert.ok(out.includes(`<a href="${expected}">ansehen</a>`), `${url}: ${out}`);
    }
  });

  test('only a value that starts the attribute decides: after a literal scheme it is path text; an empty value before it does not hide it', () => {
    const variables = { a: 'javascript:alert(1)', empty: '' };
    assert.equal(html('<a href="https://example.com/go/{{ a }}">x</a>', variables), '<a href="https://example.com/go/javascript:alert(1)">x</a>');
    assert.equal(html('<a href="{{ empty }}{{ a }}">x</a>', variables), '<a href="#">x</a>');
    assert.equal(html('<a title="{{ a }}">x</a>', variables), '<a title="javascript:alert(1)">x</a>');
  });
});
