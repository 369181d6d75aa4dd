import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyRefusal, type RefusalClass } from '../../src/delivery/bounces.ts';

// Replies as large receivers and common MTAs send them (multi-line replies as nodemailer joins
// them), and the class each must get (docs/decisions/sending.md, RFC 3463).
const CASES: Array<[RefusalClass, string, string, string?]> = [
  [
    'hard',
    'Gmail: no such account',
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550-5.1.1 double-checking the recipient's email address for typos or\n550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
  ],
  ['hard', 'Postfix: unknown in the virtual table', '550 5.1.1 <ana@example.com>: Recipient address rejected: User unknown in virtual mailbox table'],
  ['hard', 'Exchange Online: recipient not found', '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup'],
  [
    'hard',
    'Outlook.com: mailbox unavailable under 5.5.0',
    '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [AM0PR01MB1234.eurprd01.prod.exchangelabs.com]',
  ],
  ['hard', 'Yahoo: bare 554 with the user text', "554 delivery error: dd This user doesn't have a yahoo.com account (ana@yahoo.com) [0] - mta1234.mail.ne1.yahoo.com"],
  ['hard', 'bare 550 "no such user"', '550 No such user here'],
  ['hard', '5.0.0 with an unknown-user text', '550 5.0.0 <ana@example.org>... User unknown'],
  [
    'soft',
    'Gmail: inbox out of space',
    "552-5.2.2 The recipient's inbox is out of storage space. Please direct the\n552 5.2.2 recipient to https://support.google.com/mail/?p=OverQuotaPerm",
  ],
  ['soft', 'message over the mailbox limit', '552 5.2.3 Message exceeds maximum size allowed for this mailbox'],
  ['soft', 'mailbox disabled (5.2.1)', '550 5.2.1 The email account that you tried to reach is disabled.'],
  ['soft', 'bare 552: exceeded storage allocation (RFC 5321)', '552 Requested mail action aborted: exceeded storage allocation'],
  ['soft', '5.0.0 with a quota text', '550 5.0.0 Mailbox quota exceeded'],
  ['failed', 'Gmail: unsolicited mail rate', '550-5.7.1 [203.0.113.7] Our system has detected an unusual rate of\n550 5.7.1 unsolicited mail originating from your IP address.'],
  ['failed', 'Gmail: DMARC policy', "550-5.7.26 Unauthenticated email from example.com is not accepted due to\n550 5.7.26 domain's DMARC policy."],
  ['failed', 'blocklisted client', '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org'],
  ['failed', 'Yahoo: IP blocked', "553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.7, because the ip is in Spamhaus's list"],
  ['failed', 'message too big for the system (5.3.4)', '552 5.3.4 Message size exceeds fixed limit'],
  ['failed', 'bad sender address (5.1.7) at RCPT', '553 5.1.7 The sender address is not valid'],
  ['failed', 'bare 550 that names a block, not the user', '550 Mailbox unavailable: message blocked due to spam content'],
  ['failed', 'bare 554 transaction failed', '554 Transaction failed'],
  ['failed', 'sender refused at MAIL FROM, whatever the code', '550 5.1.1 <bounce@example.com>: Sender address rejected: User unknown', 'MAIL FROM'],
  [
    'retry',
    'Gmail: 421 rate limited',
    '421-4.7.0 [203.0.113.7] Our system has detected an unusual rate of\n421 4.7.0 unsolicited mail. To protect our users, mail has been temporarily rate limited.',
  ],
  ['retry', 'greylisting', '450 4.2.0 <ana@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/'],
  ['retry', 'Postfix: mailbox full as a 452', '452 4.2.2 <ana@example.com>: Mailbox full'],
];

describe('SMTP refusals → bounce classes (RFC 3463)', () => {
  for (const [expected, name, response, command] of CASES) {
    test(`${name} → ${expected}`, () => {
      const responseCode = Number(response.slice(0, 3));
      const result = classifyRefusal({ responseCode, response, command: command ?? 'RCPT TO', message: `Recipient command failed: ${response}` });
      assert.equal(result.class, expected, result.error);
      assert.equal(result.error, `SMTP ${responseCode}: ${response}`);
    });
  }

  test('no answer at all (refused connection, timeout) → retry', () => {
    const result = classifyRefusal({ message: 'connect ECONNREFUSED 127.0.0.1:2525' });
    assert.equal(result.class, 'retry');
    assert.equal(result.error, 'Connection failed: connect ECONNREFUSED 127.0.0.1:2525');
  });

  test('the enhanced code is read from the first line', () => {
    assert.equal(classifyRefusal({ responseCode: 550, response: '550-5.1.1 first\n550 5.1.1 second', message: '' }).enhanced, '5.1.1');
    assert.equal(classifyRefusal({ responseCode: 550, response: '550 Access denied', message: '' }).enhanced, null);
  });
});
