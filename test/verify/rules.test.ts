import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aliasService, checkSyntax, damerauLevenshtein, disposableMatch, isFreeMailDomain, isPlusAddressed, isSlip, suggestDomain } from '../../src/verify/verify.rules.ts';

const valid = (email: string) => {
  const result = checkSyntax(email);
  assert.ok(result.ok, `${email} should be valid: ${!result.ok && result.reason}`);
  return result.address;
};
const invalid = (email: string, reason: RegExp) => {
  const result = checkSyntax(email);
  assert.equal(result.ok, false, `${email} should be invalid`);
  assert.match(!result.ok ? result.reason : '', reason);
};

describe('verify rules: syntax (docs/decisions/verify.md step 1)', () => {
  test('ordinary addresses are valid; the domain comes back in lower case', () => {
    assert.deepEqual(valid('Jane.Doe@Example.COM'), { local: 'Jane.Doe', domain: 'example.com' });
    valid("o'brien+news@mail.example.co.uk");
    valid('a_b-c!#$%&*/=?^`{|}~@x1.io');
    valid('user@123.example.com');
  });

  test('an internationalized domain is checked in its punycode form', () => {
    assert.equal(valid('anna@münchen.de').domain, 'xn--mnchen-3ya.de');
  });

  test('the @ and both sides are required', () => {
    invalid('', /empty/);
    invalid('jane.example.com', /no @/);
    invalid('@example.com', /nothing before the @/);
    invalid('jane@', /no domain/);
    invalid('jane@doe@example.com', /more than one @/);
  });

  test('dots in the local part: not leading, trailing or doubled', () => {
    invalid('.jane@example.com', /start or end with a dot/);
    invalid('jane.@example.com', /start or end with a dot/);
    invalid('ja..ne@example.com', /two dots in a row/);
  });

  test('whitespace, quotes and other characters outside the dot-atom grammar are refused', () => {
    invalid('jane doe@example.com', /whitespace/);
    invalid(' jane@example.com', /whitespace/);
    invalid('"jane"@example.com', /not allowed/);
    invalid('jane(comment)@example.com', /not allowed/);
    invalid('jöhn@example.com', /not allowed/);
  });

  test('RFC 5321 lengths: local part ≤ 64, label ≤ 63, address ≤ 254', () => {
    valid(`${'a'.repeat(64)}@example.com`);
    invalid(`${'a'.repeat(65)}@example.com`, /65 characters long; at most 64/);
    valid(`jane@${'b'.repeat(63)}.com`);
    invalid(`jane@${'b'.repeat(64)}.com`, /longer than 63/);
    const domain = `${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(56)}.com`; // 243 characters
    valid(`${'a'.repeat(10)}@${domain}`); // 254
    invalid(`${'a'.repeat(11)}@${domain}`, /255 characters long; at most 254/);
  });

  test('domain labels: letters, digits and inner hyphens; two labels; TLD not all digits', () => {
    valid('jane@my-company.example');
    invalid('jane@-example.com', /"-example"/);
    invalid('jane@example-.com', /"example-"/);
    invalid('jane@exa_mple.com', /"exa_mple"/);
    invalid('jane@localhost', /no top-level domain/);
    invalid('jane@example..com', /two dots in a row/);
    invalid('jane@example.com.', /end with a dot/);
    invalid('jane@.example.com', /start or end with a dot/);
    invalid('jane@192.168.0.1', /all digits/);
    invalid('jane@[192.168.0.1]', /IP address literal/);
  });
});

describe('verify rules: plus, disposable, alias, personal (steps 2–5)', () => {
  test('plus addressing is a + in the local part only', () => {
    assert.equal(isPlusAddressed(valid('jane+news@example.com')), true);
    assert.equal(isPlusAddressed(valid('jane@example.com')), false);
  });

  test('disposable: the listed domain and its subdomains', () => {
    assert.equal(disposableMatch('mailinator.com'), 'mailinator.com');
    assert.equal(disposableMatch('inbox.mailinator.com'), 'mailinator.com');
    assert.equal(disposableMatch('gmail.com'), undefined);
    assert.equal(disposableMatch('example.com'), undefined);
  });

  test('alias: the forwarding services and their subdomains', () => {
    assert.equal(aliasService('privaterelay.appleid.com')?.service, 'Apple Hide My Email');
    assert.equal(aliasService('duck.com')?.service, 'DuckDuckGo Email Protection');
    assert.equal(aliasService('mozmail.com')?.service, 'Firefox Relay');
    assert.equal(aliasService('simplelogin.com')?.service, 'SimpleLogin');
    assert.equal(aliasService('jane.anonaddy.com')?.domain, 'anonaddy.com');
    assert.equal(aliasService('appleid.com'), undefined);
    assert.equal(aliasService('example.com'), undefined);
  });

  test('personal: the free-mail list, exact domain', () => {
    assert.equal(isFreeMailDomain('gmail.com'), true);
    assert.equal(isFreeMailDomain('yahoo.com'), true);
    assert.equal(isFreeMailDomain('example.com'), false);
    assert.equal(isFreeMailDomain('mail.gmail.com'), false);
  });
});

describe('verify rules: typo (step 6)', () => {
  test('a mistyped well-known provider is corrected', () => {
    assert.equal(suggestDomain('gmial.com'), 'gmail.com');
    assert.equal(suggestDomain('gmaill.com'), 'gmail.com');
    assert.equal(suggestDomain('gnail.com'), 'gmail.com');
    assert.equal(suggestDomain('gmail.co'), 'gmail.com');
    assert.equal(suggestDomain('hotmial.com'), 'hotmail.com');
    assert.equal(suggestDomain('hotmal.com'), 'hotmail.com');
    assert.equal(suggestDomain('outlok.com'), 'outlook.com');
    assert.equal(suggestDomain('yahooo.com'), 'yahoo.com');
    assert.equal(suggestDomain('lvie.com'), 'live.com');
  });

  test('a mistyped .com TLD is corrected on any domain, together with a provider typo', () => {
    assert.equal(suggestDomain('example.con'), 'example.com');
    assert.equal(suggestDomain('example.cmo'), 'example.com');
    assert.equal(suggestDomain('example.ocm'), 'example.com');
    assert.equal(suggestDomain('gmail.con'), 'gmail.com');
    assert.equal(suggestDomain('gmial.con'), 'gmail.com');
  });

  test('well-known and real domains are not typos', () => {
    for (const domain of ['gmail.com', 'googlemail.com', 'ymail.com', 'yahoo.co.uk', 'hotmail.fr', 'proton.me', 'mail.com']) {
      assert.equal(suggestDomain(domain), undefined, domain);
    }
    // On the free-mail list and two edits from a provider, or a country version of it.
    for (const domain of ['email.com', 'hotmail.ca', 'yahoo.ca', 'live.ca', 'gmx.de', 'hotmail.de', 'yahoo.de']) {
      assert.equal(suggestDomain(domain), undefined, domain);
    }
    // Ordinary company domains, including short ones one letter from a short provider name.
    for (const domain of ['acme-widgets.com', 'stripe.com', 'example.org', 'hotels.com', 'love.com', 'wahoo.com', 'gmc.com']) {
      assert.equal(suggestDomain(domain), undefined, domain);
    }
  });

  test('edit distances', () => {
    assert.equal(damerauLevenshtein('gmail.com', 'gmail.com'), 0);
    assert.equal(damerauLevenshtein('gmial.com', 'gmail.com'), 1);
    assert.equal(damerauLevenshtein('gmai.com', 'gmail.com'), 1);
    assert.equal(damerauLevenshtein('hotmal.cm', 'hotmail.com'), 2);
    assert.equal(isSlip('lvie.com', 'live.com'), true);
    assert.equal(isSlip('liv.com', 'live.com'), true);
    assert.equal(isSlip('livve.com', 'live.com'), true);
    assert.equal(isSlip('love.com', 'live.com'), false);
    assert.equal(isSlip('lives.com', 'live.com'), false);
  });
});
