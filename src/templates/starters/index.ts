import { ACCOUNT_FOOTER, card, frame, UNSUBSCRIBE_FOOTER } from './frame.ts';

/**
 * Starter templates offered on "New template" (docs/templates.md, Starters): responsive MJML that
 * renders without a warning, for the visual editor or the MJML editor. Placeholders carry
 * fallbacks so that a preview without a contact reads well.
 */
export type Starter = {
  id: string;
  name: string;
  description: string;
  type: 'TRANSACTIONAL' | 'MARKETING';
  subject: string;
  source: string;
};

const hello = 'Hi {{ data.firstName ?? "there" }},';

export const STARTERS: readonly Starter[] = [
  {
    id: 'welcome',
    name: 'Welcome',
    description: 'Greets a new sign-up and points to the first step.',
    type: 'MARKETING',
    subject: 'Welcome to {{ data.company ?? "Acme" }}, {{ data.firstName ?? "friend" }}',
    source: frame({
      preview: 'Three things to try in your first week',
      footer: UNSUBSCRIBE_FOOTER,
      body: card(`        <mj-text font-size="26px" font-weight="700" line-height="1.3">Welcome aboard!</mj-text>
        <mj-text>${hello}</mj-text>
        <mj-text>Thanks for joining. Your account is ready, and the quickest way to see what it can do is to set up your first project: it takes about five minutes.</mj-text>
        <mj-button href="{{ data.startUrl ?? 'https://example.com/start' }}">Set up my project</mj-button>
        <mj-divider border-color="#e9ecef" border-width="1px" />
        <mj-text font-weight="700">Three things to try this week</mj-text>
        <mj-text padding-top="0px"><ul style="padding-left:20px;margin:0"><li>Import your contacts from a CSV file.</li><li>Pick a starter and make it yours.</li><li>Send yourself a test before anyone else sees it.</li></ul></mj-text>
        <mj-text>Reply to this email whenever you have a question: a person reads every answer.</mj-text>`),
    }),
  },
  {
    id: 'password-reset',
    name: 'Password reset',
    description: 'A reset link that expires, and what to do if the request was not theirs.',
    type: 'TRANSACTIONAL',
    subject: 'Reset your {{ data.company ?? "Acme" }} password',
    source: frame({
      preview: 'Your reset link is valid for one hour',
      footer: ACCOUNT_FOOTER,
      body: card(`        <mj-text font-size="24px" font-weight="700" line-height="1.3">Reset your password</mj-text>
        <mj-text>${hello}</mj-text>
        <mj-text>Someone asked to reset the password of the account for {{ email ?? "this address" }}. If it was you, choose a new one with the button below. The link works once and expires in one hour.</mj-text>
        <mj-button href="{{ data.resetUrl ?? 'https://example.com/reset' }}">Choose a new password</mj-button>
        <mj-text font-size="14px" color="#6b7280">If you did not ask for this, ignore this email: your password stays as it is.</mj-text>`),
    }),
  },
  {
    id: 'receipt',
    name: 'Receipt',
    description: 'An order summary with line items and a total.',
    type: 'TRANSACTIONAL',
    subject: 'Your receipt for order {{ data.orderNumber ?? "#1001" }}',
    source: frame({
      preview: 'Thank you for your order',
      footer: ACCOUNT_FOOTER,
      body: card(`        <mj-text font-size="24px" font-weight="700" line-height="1.3">Thank you for your order</mj-text>
        <mj-text>${hello} we received your payment. Here is your receipt for order <strong>{{ data.orderNumber ?? "#1001" }}</strong>.</mj-text>
        <mj-table font-size="15px" line-height="1.5" color="#1f2933" cellpadding="6px">
          <tr style="border-bottom:1px solid #e9ecef;text-align:left"><th>Item</th><th style="text-align:right">Amount</th></tr>
          <tr><td>{{ data.itemName ?? "Annual plan" }}</td><td style="text-align:right">{{ data.itemAmount ?? "$120.00" }}</td></tr>
          <tr><td>Tax</td><td style="text-align:right">{{ data.tax ?? "$0.00" }}</td></tr>
          <tr style="border-top:1px solid #e9ecef;font-weight:700"><td>Total</td><td style="text-align:right">{{ data.total ?? "$120.00" }}</td></tr>
        </mj-table>
        <mj-button href="{{ data.invoiceUrl ?? 'https://example.com/invoices' }}">View invoice</mj-button>
        <mj-text font-size="14px" color="#6b7280">Questions about this charge? Reply to this email and we will sort it out.</mj-text>`),
    }),
  },
  {
    id: 'newsletter',
    name: 'Newsletter',
    description: 'A lead story and two columns of shorter news.',
    type: 'MARKETING',
    subject: '{{ data.company ?? "Acme" }} monthly: what changed in {{ "now" | date: "%B" }}',
    source: frame({
      preview: 'The month in three stories',
      footer: UNSUBSCRIBE_FOOTER,
      body: `${card(`        <mj-text font-size="13px" font-weight="700" color="#1c7ed6" text-transform="uppercase" letter-spacing="1px">This month</mj-text>
        <mj-text font-size="24px" font-weight="700" line-height="1.3">Faster imports, and a new way to write emails</mj-text>
        <mj-text>${hello} this month we rebuilt the importer: a file of a million contacts now loads in under a minute, and a column it cannot read is named with its line instead of failing the whole file.</mj-text>
        <mj-button href="https://example.com/blog/imports">Read the story</mj-button>`)}
    <mj-section background-color="#ffffff" border-radius="8px" padding="8px 8px 24px">
      <mj-column>
        <mj-text font-weight="700">Templates that fit every screen</mj-text>
        <mj-text padding-top="0px" font-size="15px">Every starter now adapts to phones and desktops alike, and dark mode keeps your colours readable.</mj-text>
        <mj-text padding-top="0px" font-size="15px"><a href="https://example.com/blog/templates">More about templates →</a></mj-text>
      </mj-column>
      <mj-column>
        <mj-text font-weight="700">From the community</mj-text>
        <mj-text padding-top="0px" font-size="15px">A bakery in Lyon tells how it went from a paper list to a weekly letter read by four thousand neighbours.</mj-text>
        <mj-text padding-top="0px" font-size="15px"><a href="https://example.com/blog/lyon">Read their story →</a></mj-text>
      </mj-column>
    </mj-section>`,
    }),
  },
  {
    id: 'announcement',
    name: 'Announcement',
    description: 'One piece of news, told plainly, with one call to action.',
    type: 'MARKETING',
    subject: 'New: {{ data.feature ?? "scheduled sending" }} is here',
    source: frame({
      preview: 'Available today on every plan',
      footer: UNSUBSCRIBE_FOOTER,
      body: `    <mj-section background-color="#1c7ed6" border-radius="8px 8px 0px 0px" padding="32px 16px">
      <mj-column>
        <mj-text align="center" color="#ffffff" font-size="14px" font-weight="700" text-transform="uppercase" letter-spacing="1px">New today</mj-text>
        <mj-text align="center" color="#ffffff" font-size="28px" font-weight="700" line-height="1.25">{{ data.feature ?? "Scheduled sending" }}</mj-text>
      </mj-column>
    </mj-section>
${card(`        <mj-text>${hello}</mj-text>
        <mj-text>You asked for it, and it is here: write your campaign when it suits you and let it go out when it suits your readers. Pick a date and a time, and we send it in their time zone.</mj-text>
        <mj-button href="https://example.com/features/scheduling">Try it now</mj-button>
        <mj-text font-size="14px" color="#6b7280">Available today on every plan, at no extra cost.</mj-text>`).replace('border-radius="8px"', 'border-radius="0px 0px 8px 8px"')}`,
    }),
  },
  {
    id: 're-engagement',
    name: 'Re-engagement',
    description: 'Asks a quiet subscriber whether to keep writing.',
    type: 'MARKETING',
    subject: 'Should we keep writing to you, {{ data.firstName ?? "friend" }}?',
    source: frame({
      preview: 'One click to stay, nothing to do to leave',
      footer: UNSUBSCRIBE_FOOTER,
      body: card(`        <mj-text font-size="24px" font-weight="700" line-height="1.3">We miss you</mj-text>
        <mj-text>${hello}</mj-text>
        <mj-text>We have not seen you open our emails in a while. That is fine: inboxes are busy. We would rather write less than write to someone who no longer wants to hear from us.</mj-text>
        <mj-text>If you would like to keep getting our monthly letter, tell us with one click.</mj-text>
        <mj-button href="{{ manageUrl }}">Yes, keep me subscribed</mj-button>
        <mj-text font-size="14px" color="#6b7280">If we do not hear from you, we will stop writing in 30 days. You can also <a href="{{ unsubscribeUrl }}">unsubscribe now</a>.</mj-text>`),
    }),
  },
];
